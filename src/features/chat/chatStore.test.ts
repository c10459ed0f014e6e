import { beforeEach, describe, expect, it } from 'vitest';
import type { PhotoCaption } from '../../protocol/protocol';
import type { ChatMessage, PhotoElement } from '../../shared/conversation';
import { chatActions, useChatStore, withCaption } from './chatStore';

const photo: PhotoElement = { kind: 'image', imageId: 'p1', name: 'coffee.jpg', width: 600, height: 400 };
const grounded: PhotoCaption = {
  imageId: 'p1',
  text: 'A cup.',
  source: 'grounded',
  confident: true,
  score: 0.58,
  detections: { width: 600, height: 400, objects: [{ label: 'cup', score: 0.58, box: { x1: 170, y1: 15.5, x2: 415.9, y2: 267.7 } }] },
};

describe('chat store: what the worker said about a photo', () => {
  beforeEach(() => useChatStore.setState({ messages: [] }));

  it('keeps the caption, where it came from, and the boxes on the photo', () => {
    const turn: ChatMessage = { id: 'm1', role: 'user', createdAt: 1, elements: [photo, { kind: 'text', text: 'my coffee' }] };
    chatActions.appendMessage(turn);
    chatActions.setCaptions('m1', [grounded]);
    expect(useChatStore.getState().messages[0]!.elements).toEqual([
      { ...photo, caption: 'A cup.', captionSource: 'grounded', captionConfident: true, detections: grounded.detections },
      { kind: 'text', text: 'my coffee' },
    ]);
  });

  it('a caption made without the detector carries no boxes, and replaces boxes an older caption had', () => {
    const described = withCaption(photo, grounded);
    expect(withCaption(described, { ...grounded, text: 'A photo of a mug.', source: 'image-encoder', detections: null })).toEqual({
      ...photo,
      caption: 'A photo of a mug.',
      captionSource: 'image-encoder',
      captionConfident: true,
    });
  });

  it('leaves photos the worker said nothing about as they were', () => {
    expect(withCaption(photo, undefined)).toBe(photo);
    chatActions.appendMessage({ id: 'm2', role: 'user', createdAt: 1, elements: [photo] });
    chatActions.setCaptions('m2', [{ ...grounded, imageId: 'another photo' }]);
    expect(useChatStore.getState().messages[0]!.elements).toEqual([photo]);
  });
});

describe('chat store: what the chat controller keeps between calls', () => {
  it('holds a photo check until it settles, and counts new conversations', async () => {
    let settle: (failed: number) => void = () => undefined;
    const checking = new Promise<number>((resolve) => (settle = resolve));
    const epoch = useChatStore.getState().conversationEpoch;
    chatActions.trackCheck(checking);
    chatActions.nextConversationEpoch();
    expect([useChatStore.getState().pendingChecks.has(checking), useChatStore.getState().conversationEpoch]).toEqual([true, epoch + 1]);
    settle(0);
    await checking;
    await Promise.resolve();
    expect(useChatStore.getState().pendingChecks.size).toBe(0);
  });

  it('holds the video being watched until its watch is done; a later watch is not cleared by an earlier one', () => {
    const first = new AbortController();
    const doneFirst = chatActions.watchingVideo(first);
    expect(useChatStore.getState().watchingVideo).toBe(first);
    const second = new AbortController();
    const doneSecond = chatActions.watchingVideo(second);
    doneFirst();
    expect(useChatStore.getState().watchingVideo).toBe(second);
    doneSecond();
    expect(useChatStore.getState().watchingVideo).toBeNull();
  });
});
