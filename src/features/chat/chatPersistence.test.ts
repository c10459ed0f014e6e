import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChatMessage } from '../../shared/conversation';
import { useNoticeStore } from '../../shared/stores/noticeStore';

// IndexedDB and sessionStorage stand-ins: a save that fails until `diskWorks` is set, and what was written.
const disk = vi.hoisted(() => ({ works: true, written: [] as { slot: string; ids: string[]; into: string | undefined }[] }));
vi.mock('../../persistence/conversationDb', () => ({
  putMessages: vi.fn(async (slot: string, messages: readonly ChatMessage[], _images: unknown, into?: string) => {
    if (!disk.works) throw new Error('The disk is unplugged');
    disk.written.push({ slot, ids: messages.map((m) => m.id), into });
    return into ?? 'c-new';
  }),
  loadConversation: vi.fn(async () => ({ conversationId: 'c1', messages: [] })),
  bytesToStore: () => 0,
  forgetSessionImages: () => undefined,
  onOtherTabChange: () => () => undefined,
  rememberSessionImages: () => undefined,
  removeMessages: async () => undefined,
  restorePreviousConversation: async () => false,
  startConversation: async () => ({ previousId: 'c1', conversationId: 'c2' }),
}));
vi.mock('../../persistence/unsavedTurns', () => ({
  keepUnsavedTurns: async () => ({ imagesLeftOut: [] }),
  readUnsavedTurns: () => ({ turns: [], images: [] }),
}));

const { ConversationKeeper } = await import('./chatPersistence');

const turn = (id: string): ChatMessage => ({ id, role: 'user', createdAt: 1, elements: [{ kind: 'text', text: `hello ${id}` }] });

describe('ConversationKeeper', () => {
  beforeEach(() => {
    disk.works = true;
    disk.written = [];
    useNoticeStore.setState({ notices: [] });
  });

  it('keeps its own state: a failed save is held by the keeper that tried it, not by another one', async () => {
    const first = new ConversationKeeper();
    const second = new ConversationKeeper();
    await Promise.all([first.restoreConversation('main'), second.restoreConversation('kiosk')]);
    expect([first.currentConversationId(), first.inKioskConversation(), second.inKioskConversation()]).toEqual(['c1', false, true]);

    disk.works = false;
    await first.saveChanged([turn('m1')], []);
    expect(first.holdsUnsavedTurns()).toBe(true);
    expect(second.holdsUnsavedTurns()).toBe(false);
    const notice = useNoticeStore.getState().notices.at(-1)!;
    expect(notice.text).toContain('This turn is on screen but not saved yet: The disk is unplugged. Press Retry');

    // Retry, once the disk works again, writes the held turn into the conversation it belongs to.
    disk.works = true;
    notice.action!.run();
    await vi.waitFor(() => expect(first.holdsUnsavedTurns()).toBe(false), { timeout: 30_000 });
    expect(disk.written).toEqual([{ slot: 'main', ids: ['m1'], into: 'c1' }]);
    expect(useNoticeStore.getState().notices.at(-1)!.text).toBe('Saved: every turn on screen is stored again.');
  });

  it('goes on to a new conversation with startFresh, and saves the next turn there', async () => {
    const keeper = new ConversationKeeper();
    await keeper.restoreConversation('main');
    expect(await keeper.startFresh(true)).toEqual({ previousId: 'c1', conversationId: 'c2' });
    await keeper.saveChanged([turn('m2')], []);
    expect(disk.written).toEqual([{ slot: 'main', ids: ['m2'], into: 'c2' }]);
  });
});
