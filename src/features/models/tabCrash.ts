import { defaultPackId } from '../../engine/pack/defaultPack';
import { useModelStore } from '../../shared/stores/modelStore';
import { noticeActions } from '../../shared/stores/noticeStore';

/**
 * A tab whose worker runs out of memory dies whole in Chromium ("Aw, Snap"): nothing of the page runs
 * to say so. So the page marks, in this tab's session storage, that it is open and with which pack,
 * and clears the mark when it is left normally (pagehide). A page that finds the mark on load follows
 * one that crashed (a reload of the crashed tab keeps its session storage), and says so, offering the
 * default pack when another was in use.
 */
const OPEN_KEY = 'mmdialog-page-open';

interface OpenMark {
  packId: string | null;
  packName: string | null;
}

function readMark(): OpenMark | null {
  try {
    const raw = sessionStorage.getItem(OPEN_KEY);
    if (!raw) return null;
    const mark = JSON.parse(raw) as Partial<OpenMark>;
    return { packId: typeof mark.packId === 'string' ? mark.packId : null, packName: typeof mark.packName === 'string' ? mark.packName : null };
  } catch {
    return null; // storage refused (a private window's quota) or a mark from elsewhere: no crash to report
  }
}

function writeMark(): void {
  const { activePackId, packs } = useModelStore.getState();
  const mark: OpenMark = { packId: activePackId, packName: packs.find((p) => p.id === activePackId)?.name ?? null };
  try {
    sessionStorage.setItem(OPEN_KEY, JSON.stringify(mark));
  } catch {
    // Without session storage a crash cannot be told next time; nothing else depends on it.
  }
}

/** Says that the last page of this tab crashed, if it did, then marks this one; `usePack` loads another pack. */
export function watchForTabCrash(usePack: (packId: string) => void): void {
  const previous = readMark();
  if (previous) {
    const what = previous.packName ? ` while ${previous.packName} was in use` : '';
    const notice = `The last visit in this tab ended in a crash${what}: the device may have run out of memory. Your conversation is kept.`;
    const offer = (packs = useModelStore.getState().packs) => {
      const fallback = defaultPackId(packs.filter((p) => !p.stored).map((p) => p.id));
      const smaller = fallback && fallback !== previous.packId ? packs.find((p) => p.id === fallback) : undefined;
      return smaller ? { label: `Use ${smaller.name}`, run: () => usePack(smaller.id) } : undefined;
    };
    // The packs are listed once the models index is read; the offer waits for them.
    if (useModelStore.getState().packs.length > 0) noticeActions.notify('error', notice, offer());
    else {
      const stop = useModelStore.subscribe((state) => {
        if (state.packs.length === 0) return;
        stop();
        noticeActions.notify('error', notice, offer(state.packs));
      });
    }
  }
  writeMark();
  useModelStore.subscribe((state, before) => {
    if (state.activePackId !== before.activePackId || state.packs !== before.packs) writeMark();
  });
  window.addEventListener('pagehide', () => {
    try {
      sessionStorage.removeItem(OPEN_KEY);
    } catch {
      // as above
    }
  });
  // A page restored from the back-forward cache is open again.
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) writeMark();
  });
}
