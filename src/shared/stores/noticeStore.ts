import { create } from 'zustand';

/** A sentence for the person: what happened and what to do, shown above the chat whichever feature said it. */
export interface Notice {
  id: number;
  tone: 'error' | 'info';
  text: string;
  /** A button in the notice, such as "Undo". */
  action?: { label: string; run: () => void };
}

interface NoticeState {
  notices: Notice[];
}

let nextNoticeId = 1;

export const useNoticeStore = create<NoticeState>()(() => ({ notices: [] }));

export const noticeActions = {
  /** Shows a notice (the last four stay) and returns its id, so the caller can withdraw it. */
  notify(tone: Notice['tone'], text: string, action?: Notice['action']): number {
    const notice: Notice = { id: nextNoticeId++, tone, text, ...(action ? { action } : {}) };
    useNoticeStore.setState((s) => ({ notices: [...s.notices.slice(-3), notice] }));
    return notice.id;
  },
  dismiss(id: number) {
    useNoticeStore.setState((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
  },
};
