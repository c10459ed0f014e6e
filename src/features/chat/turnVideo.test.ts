import { describe, expect, it } from 'vitest';
import type { ChatMessage, PhotoElement, VideoElement } from '../../shared/conversation';
import { turnVideoOf } from './turnVideo';

const analysis = (check: 'fit' | 'unfit' = 'fit'): NonNullable<VideoElement['analysis']> => ({
  description: 'a bus',
  shown: { drawn: false, answer: 'A bus.' },
  features: { video: [0.5], audio: [0.25] },
  frames: [],
  timeline: null,
  speechChecked: true,
  detectorUsed: true,
  check,
});
const video = (id: string, analysed: NonNullable<VideoElement['analysis']> | null = analysis()): VideoElement => ({
  kind: 'video',
  videoId: id,
  posterId: `p-${id}`,
  sheetId: `s-${id}`,
  name: 'bus.webm',
  width: 320,
  height: 240,
  seconds: 4,
  hasAudio: true,
  description: 'a bus',
  ...(analysed ? { analysis: analysed } : {}),
});
const photo: PhotoElement = { kind: 'image', imageId: 'i1', name: 'cat.jpg', width: 10, height: 10 };
let id = 0;
const user = (...elements: ChatMessage['elements']): ChatMessage => ({ id: `m${id++}`, role: 'user', createdAt: 0, elements });
const system = (text: string, about?: NonNullable<ChatMessage['reply']>): ChatMessage => ({
  id: `m${id++}`,
  role: 'assistant',
  createdAt: 0,
  elements: [{ kind: 'text', text }],
  ...(about ? { reply: about } : {}),
});

describe('the video a turn is about', () => {
  it('is the video shared with the turn, once watched, whatever else the turn holds', () => {
    const shared = video('v2');
    expect(turnVideoOf({ watched: shared, photos: 2 }, [user(video('v1'))])).toEqual({
      videoId: 'v2',
      sharedNow: true,
      seconds: 4,
      description: 'a bus',
      shown: { drawn: false, answer: 'A bus.' },
      features: { video: [0.5], audio: [0.25] },
      unfit: false,
      earlier: [],
    });
  });

  it('is the last video shared before a turn without photos, with the questions asked about it and their answers', () => {
    const watched = video('v1', analysis('unfit'));
    const earlier = [
      user(watched, { kind: 'text', text: 'my trip' }),
      system('I watched your 4.0 s video.', { video: { videoId: 'v1', answeredFrom: 'watched' }, totalMs: 1 }),
      user({ kind: 'text', text: 'what is in it?' }),
      system('A bus.', { video: { videoId: 'v1', answeredFrom: 'frames', question: 'what is in it?' }, totalMs: 1 }),
      user({ kind: 'text', text: 'hm' }),
      system('ok'),
    ];
    expect(turnVideoOf({ watched: null, photos: 0 }, earlier)).toMatchObject({
      videoId: 'v1',
      sharedNow: false,
      unfit: true,
      earlier: [{ question: 'what is in it?', answer: 'A bus.' }],
    });
  });

  it('is none when the turn or a later turn shares a photo, or the last video was never watched', () => {
    const earlier = [user(video('v1')), system('Looks like a bus.')];
    expect(turnVideoOf({ watched: null, photos: 1 }, earlier)).toBeNull();
    expect(turnVideoOf({ watched: null, photos: 0 }, [...earlier, user(photo)])).toBeNull();
    expect(turnVideoOf({ watched: null, photos: 0 }, [user(video('v1', null))])).toBeNull();
    expect(turnVideoOf({ watched: null, photos: 0 }, [])).toBeNull();
  });
});
