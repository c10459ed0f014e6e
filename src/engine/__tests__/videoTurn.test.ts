import { describe, expect, it } from 'vitest';
import { acknowledgement, answeredAsUnfit, isQuestion, type TurnVideo } from '../video/videoTurn';

const video = (sharedNow: boolean, unfit: boolean): TurnVideo => ({
  videoId: 'v1',
  sharedNow,
  seconds: 12.4,
  description: 'a bus',
  features: { video: [], audio: [] },
  unfit,
  earlier: [],
});

describe('a turn about a video', () => {
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

  it('is answered with the written line for an unfit video when it shares the video or asks about it, and not for a statement after it', () => {
    expect(answeredAsUnfit('', video(true, true))).toBe(true);
    expect(answeredAsUnfit('is it raining?', video(false, true))).toBe(true);
    expect(answeredAsUnfit('nice weather', video(false, true))).toBe(false);
    expect(answeredAsUnfit('is it raining?', video(true, false))).toBe(false);
  });

  it('acknowledges a video shared without a question with what was seen, its length rounded as people say it', () => {
    expect(acknowledgement(video(true, false))).toBe(
      'I watched your 12 s video: a bus. Ask me about it: what is in it, what moves, whether there is any sound.',
    );
    expect(acknowledgement({ seconds: 4, description: '' })).toBe(
      'I watched your 4.0 s video: I could not make out what is in it. Ask me about it: what is in it, what moves, whether there is any sound.',
    );
  });
});
