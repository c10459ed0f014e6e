import { beforeEach, describe, expect, it } from 'vitest';
import { noticeActions, useNoticeStore } from './noticeStore';

const texts = () => useNoticeStore.getState().notices.map((n) => n.text);

describe('notices about the conversation', () => {
  beforeEach(() => useNoticeStore.setState({ notices: [] }));

  it('go when the conversation does; the page’s own notices stay, in order', () => {
    noticeActions.notify('error', 'The pool could not be stored.');
    noticeActions.notifyAboutConversation('info', 'clip.webm has no sound track.');
    noticeActions.notify('info', 'A new version is ready.');
    noticeActions.notifyAboutConversation('error', 'The message is empty.');
    noticeActions.dismissConversationNotices();
    expect(texts()).toEqual(['The pool could not be stored.', 'A new version is ready.']);
  });

  it('still count towards the last four shown', () => {
    for (const n of [1, 2, 3, 4, 5]) noticeActions.notifyAboutConversation('info', `notice ${n}`);
    expect(texts()).toEqual(['notice 2', 'notice 3', 'notice 4', 'notice 5']);
  });
});
