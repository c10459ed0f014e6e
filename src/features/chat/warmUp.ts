import { WARM_UP_STEPS } from '../../engine/response/warmUpSteps';
import { prepareVisitorScreen } from '../../engine/safety/visitorScreen';
import { loadShortcodeTable } from '../../shared/emojiShortcodes';
import { modelWorker } from '../../shared/modelWorker';
import { useModelStore } from '../../shared/stores/modelStore';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import { useChatStore } from './chatStore';

/**
 * What warming did, in the order the worker answered, with the visitor's replies that came meanwhile
 * ("reply"), shown by `show` (on <html data-warm-up>) so a test can check the order (never the time).
 * An object, not a module's variables, so a test can make one.
 */
export class WarmUpRecord {
  private readonly entries: string[] = [];
  /** The system's replies counted so far; null until the first count. */
  private replies: number | null = null;

  constructor(private readonly show: (record: string) => void) {}

  note(entry: string): void {
    this.entries.push(entry);
    this.show(this.entries.join(' '));
  }

  /** Follows the count of the system's replies from now on (once: later calls do nothing); a reply that arrives while warming is noted. */
  followReplies(count: () => number, subscribe: (listener: () => void) => unknown): void {
    if (this.replies !== null) return;
    this.replies = count();
    subscribe(() => {
      const now = count();
      if (now > this.replies! && !this.entries.includes('done')) this.note('reply');
      this.replies = now;
    });
  }
}

const record = new WarmUpRecord((text) => (document.documentElement.dataset['warmUp'] = text));
const systemReplies = () => useChatStore.getState().messages.filter((m) => m.role === 'assistant').length;

/**
 * Asks the worker for every warm-up step at once (WARM_UP_STEPS: the text path, then the photo path).
 * The worker runs them only while no visitor's request waits, so a turn sent meanwhile waits for one
 * small step at most, never for the rest of warming.
 */
async function warmUp(): Promise<void> {
  record.followReplies(systemReplies, useChatStore.subscribe);
  record.note('started');
  const method = useSettingsStore.getState().method;
  await Promise.all(
    WARM_UP_STEPS.map((step) =>
      modelWorker()
        .call('warmUp', { step, method })
        .then(
          () => record.note(step),
          // Warming is an optimisation: a real turn then pays the cold start, and reports its own errors.
          () => record.note(`${step}-failed`),
        ),
    ),
  );
  record.note('done');
}

/** Warms the reply paths once the page is idle after Ready (at most half a second later). */
export function warmPhotoPathWhenIdle(): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(() => void warmUp(), { timeout: 500 });
  else setTimeout(() => void warmUp(), 0);
}

/**
 * A visitor has begun to share a photo or a video (the picker opened, a file dragged over the page, the
 * camera opened): the worker makes the photo path's sessions now, while they choose, instead of at Send
 * (issue 38). Not when a file arrives with no lead time (a paste): its own check and turn would then
 * run beside the warming runs for nothing. Once per loaded pack.
 */
export function preparePhotoPath(): void {
  if (useModelStore.getState().phase !== 'ready') return; // warming after Ready covers it then
  // Kept on <html data-photo-path> for tests. An optimisation only: on failure the photo's own turn
  // makes what is missing and reports its own errors.
  const mark = (state: string) => (document.documentElement.dataset['photoPath'] = state);
  modelWorker()
    .call('preparePhotoPath', {})
    .then(
      () => mark('prepared'),
      () => mark('failed'),
    );
}

/**
 * The page's own part of a first turn, done while the model loads (the page then mostly waits): the
 * screen's patterns compiled and the emoji shortcode table read. In the first turn they cost the main
 * thread about 70 ms between Send and the reply on screen (a CPU profile of a sample prompt at Ready).
 */
export function preparePageForFirstTurn(): void {
  const prepare = () => {
    prepareVisitorScreen();
    void loadShortcodeTable();
  };
  if (typeof requestIdleCallback === 'function') requestIdleCallback(prepare, { timeout: 2000 });
  else setTimeout(prepare, 0);
}
