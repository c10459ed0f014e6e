import { create } from 'zustand';

/** A sentence for the person: what happened and what to do, shown above the chat whichever feature said it. */
export interface Notice {
  id: number;
  tone: 'error' | 'info';
  text: string;
  /** A button in the notice, such as "Undo". */
  action?: { label: string; run: () => void };
  /** About the conversation on screen (a photo refused, a video without sound): New conversation clears it. */
  aboutConversation?: true;
}

interface NoticeState {
  notices: Notice[];
}

let nextNoticeId = 1;

export const useNoticeStore = create<NoticeState>()(() => ({ notices: [] }));

function show(notice: Notice): number {
  useNoticeStore.setState((s) => ({ notices: [...s.notices.slice(-3), notice] }));
  return notice.id;
}

export const noticeActions = {
  /** Shows a notice (the last four stay) and returns its id, so the caller can withdraw it. */
  notify(tone: Notice['tone'], text: string, action?: Notice['action']): number {
    return show({ id: nextNoticeId++, tone, text, ...(action ? { action } : {}) });
  },
  /** The same for a notice about the conversation on screen, which goes when a new one starts. */
  notifyAboutConversation(tone: Notice['tone'], text: string, action?: Notice['action']): number {
    return show({ id: nextNoticeId++, tone, text, ...(action ? { action } : {}), aboutConversation: true });
  },
  /** Clears the notices about the conversation that was on screen; the page's own (storage, model, pool) stay. */
  dismissConversationNotices() {
    useNoticeStore.setState((s) => ({ notices: s.notices.filter((n) => !n.aboutConversation) }));
  },
  dismiss(id: number) {
    useNoticeStore.setState((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
  },
};
