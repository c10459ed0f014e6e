import { describe, expect, it } from 'vitest';
import type { ChatMessage, PhotoElement, VideoElement } from '../../shared/conversation';
import { isQuestion, routeTurn } from './turnRoute';

const video = (analysed: boolean): VideoElement => ({
  kind: 'video',
  videoId: 'v1',
  posterId: 'p1',
  sheetId: 's1',
  name: 'bus.webm',
  width: 320,
  height: 240,
  seconds: 4,
  hasAudio: true,
  ...(analysed ? { analysis: {} as NonNullable<VideoElement['analysis']> } : {}),
});
const photo: PhotoElement = { kind: 'image', imageId: 'i1', name: 'cat.jpg', width: 10, height: 10 };
let id = 0;
const user = (...elements: ChatMessage['elements']): ChatMessage => ({ id: `m${id++}`, role: 'user', createdAt: 0, elements });
const system = (text: string): ChatMessage => ({ id: `m${id++}`, role: 'assistant', createdAt: 0, elements: [{ kind: 'text', text }] });

describe('where a turn goes', () => {
  it('tells questions by their mark or their first word', () => {
    expect(['what is in the video', 'Does anyone speak?', '  is it raining', 'any dogs', 'so... where?'].map(isQuestion)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['nice video', 'whatever you say', 'I wonder why', 'cool!'].map(isQuestion)).toEqual([false, false, false, false]);
  });

  it('watches a new video first, then answers a question about it or acknowledges it', () => {
    expect(routeTurn({ text: 'does anyone speak?', photos: 0, newVideo: true }, [])).toEqual({ kind: 'watch-then-answer' });
    expect(routeTurn({ text: 'look at this', photos: 0, newVideo: true }, [])).toEqual({ kind: 'watch-then-acknowledge' });
    expect(routeTurn({ text: '', photos: 0, newVideo: true }, [])).toEqual({ kind: 'watch-then-acknowledge' });
  });

  it('sends a question right after a watched video to that video, and anything else to the reply pipeline', () => {
    const watched = video(true);
    const earlier = [user(watched, { kind: 'text', text: 'my trip' }), system('Looks like a bus.')];
    expect(routeTurn({ text: 'what colour is it?', photos: 0, newVideo: false }, earlier)).toEqual({ kind: 'ask-last-video', video: watched });
    expect(routeTurn({ text: 'it was fun', photos: 0, newVideo: false }, earlier)).toEqual({ kind: 'reply' });
    // A photo in the same turn, or one shared since the video, makes the question about the photo.
    expect(routeTurn({ text: 'what is this?', photos: 1, newVideo: false }, earlier)).toEqual({ kind: 'reply' });
    expect(routeTurn({ text: 'what is this?', photos: 0, newVideo: false }, [...earlier, user(photo)])).toEqual({ kind: 'reply' });
    // Texts since the video do not change it; a video never watched (its analysis lost) is not asked.
    expect(routeTurn({ text: 'is it moving?', photos: 0, newVideo: false }, [...earlier, user({ kind: 'text', text: 'hm' }), system('ok')])).toEqual({
      kind: 'ask-last-video',
      video: watched,
    });
    expect(routeTurn({ text: 'is it moving?', photos: 0, newVideo: false }, [user(video(false))])).toEqual({ kind: 'reply' });
    expect(routeTurn({ text: 'is it moving?', photos: 0, newVideo: false }, [])).toEqual({ kind: 'reply' });
  });
});
