import { useEffect, useState } from 'react';
import type { PoolMediaItem } from '../../engine/datasets/poolCatalogue';
import { POOL_BASE_URL, loadDemoPoolCredits } from '../../shared/demoPool';
import { useModelStore } from '../../shared/stores/modelStore';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import { sendSamplePrompt, shareSamplePhoto } from './chatController';
import { useChatStore } from './chatStore';

/** Turns a stranger can try with one click; the trained heads answer the first with a picture. */
const SAMPLE_PROMPTS = ['look at this cute cat', 'we went hiking this weekend', 'can you show me a beach?', 'hi! how is your day going?'] as const;

/** Real photos of the demo pool (GCompris), shared as the visitor's own. */
// Chosen among the pool's photos that the object detector describes (an object scoring 0.5 or more:
// "A horse.", "A giraffe.", "Three cows.", "Six people."); the dog, kitten, Eiffel tower and cup shown
// before all got "I can't tell what is in this photo.", a poor first impression.
const SAMPLE_PHOTO_KEYS = ['ph-erase-horse', 'ph-erase-giraffe', 'ph-farm-animals-cow', 'ph-world-music-italy'] as const;

const chip =
  'rounded-full border border-slate-300 bg-white px-3 py-1.5 text-sm text-slate-800 hover:bg-slate-100 disabled:text-slate-400 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600';

function useSamplePhotos(enabled: boolean): PoolMediaItem[] {
  const [items, setItems] = useState<PoolMediaItem[]>([]);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    loadDemoPoolCredits()
      .then((all) => {
        const byKey = new Map(all.map((m) => [m.key, m]));
        if (live) setItems(SAMPLE_PHOTO_KEYS.flatMap((k) => byKey.get(k) ?? []));
      })
      // Without the catalogue the start screen offers prompts alone.
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [enabled]);
  return enabled ? items : [];
}

/** What an empty conversation shows: a few things to try, one click each. */
export function StartScreen() {
  const ready = useModelStore((s) => s.phase === 'ready');
  const busy = useChatStore((s) => s.awaitingReply || s.sendingWhenChecked || s.checkingImages > 0);
  // The samples come from the demo pool; another pool's replies would not match them.
  const demoPool = useSettingsStore((s) => s.poolId === 'demo');
  const photos = useSamplePhotos(demoPool);
  const disabled = !ready || busy;
  return (
    <section aria-labelledby="start-title" className="m-auto flex max-w-xl flex-col items-center gap-3 text-center text-slate-700" data-testid="start-screen">
      <h2 id="start-title" className="text-base font-medium text-slate-900">
        Say hello, or share a photo
      </h2>
      <p className="text-sm">Type below, drop or paste a photo, or try one of these:</p>
      <ul className="flex flex-wrap justify-center gap-2" aria-label="Sample messages">
        {SAMPLE_PROMPTS.map((p) => (
          <li key={p}>
            <button type="button" className={chip} disabled={disabled} onClick={() => void sendSamplePrompt(p)}>
              {p}
            </button>
          </li>
        ))}
      </ul>
      {photos.length > 0 && (
        <ul className="flex flex-wrap justify-center gap-2" aria-label="Sample photos">
          {photos.map((m) => (
            <li key={m.key}>
              <button
                type="button"
                disabled={disabled}
                aria-label={`Share the photo: ${m.label ?? m.alt}`}
                title={m.alt}
                onClick={() => void shareSamplePhoto(`${POOL_BASE_URL}${m.file}`, `${m.key}.${m.file.split('.').pop() ?? 'webp'}`)}
                className="overflow-hidden rounded-lg ring-1 ring-slate-300 hover:ring-2 hover:ring-blue-500 disabled:opacity-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
              >
                <img src={`${POOL_BASE_URL}${m.file}`} alt="" width={m.width} height={m.height} className="h-20 w-28 object-cover" />
              </button>
            </li>
          ))}
        </ul>
      )}
      {!ready && <p className="text-xs text-slate-600">These work once the status says “Ready”.</p>}
    </section>
  );
}
