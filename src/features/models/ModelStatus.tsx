import { describeLoadSteps } from '../../engine/loadSteps';
import { useShallow } from 'zustand/react/shallow';
import { type FileLoad, useModelStore } from '../../shared/stores/modelStore';
import { panelActions, usePanelStore } from '../../shared/stores/panelStore';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import type { CaptionerStatus, DetectorStatus, LocalHeadsStatus, PoolRowsStatus } from '../../protocol/protocol';
import type { ViewMode } from '../../shared/view/viewMode';
import { useViewStore } from '../../shared/view/viewStore';
import { choosePackAndLoad, loadModels } from './modelLoader';
import { PackDownloads } from './PackDownloads';
import { cancelLocalTraining, trainLocalHeads } from './localTraining';

function formatBytes(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1e3).toFixed(0)} kB`;
}

function FileBar({ file, load }: { file: string; load: FileLoad }) {
  const total = load.total ?? load.loaded;
  if (file.startsWith('pool ')) {
    // Pool rows, counted in items rather than bytes: "Embedding the pool: texts 1,200 of 13,346".
    const what = `Embedding the pool: ${file.slice('pool '.length)}`;
    return (
      <li className="text-xs" data-testid="pool-embedding">
        <div className="flex justify-between gap-2">
          <span>{what}</span>
          <span>
            {load.loaded.toLocaleString('en-US')} of {total.toLocaleString('en-US')}
          </span>
        </div>
        <progress className="h-1.5 w-full" max={total || 1} value={load.loaded} aria-label={what} />
      </li>
    );
  }
  return (
    <li className="text-xs">
      <div className="flex justify-between gap-2">
        <span className="truncate">{file}</span>
        <span>
          {load.total === null && load.loaded === 0
            ? 'waiting…'
            : `${formatBytes(load.loaded)} of ${load.total === null ? 'unknown size' : formatBytes(total)}`}
        </span>
      </div>
      <progress className="h-1.5 w-full" max={total || 1} value={load.loaded} aria-label={`Loading ${file}`} />
    </li>
  );
}

/**
 * A model that helps describe photos (the detector, the captioner) as one short phrase: ready, or
 * unavailable with the whole sentence in its title and one tap away.
 */
function ModelPartLine({
  name,
  testId,
  ready,
  reason,
}: {
  name: string;
  testId: string;
  ready: { word: string; title: string; detail: string } | null;
  reason: string;
}) {
  if (ready) {
    return (
      <span data-testid={testId} data-state="ready" title={ready.title}>
        {name}: <strong>{ready.word}</strong>
        <span className="sr-only"> {ready.detail}</span>
      </span>
    );
  }
  return (
    <details data-testid={testId} data-state="unavailable" className="open:basis-full" title={reason}>
      <summary className="cursor-pointer">
        {name}: <strong className="text-amber-800">unavailable</strong>
      </summary>
      <p className="mt-1 rounded-lg bg-amber-50 px-3 py-2 text-xs text-amber-950 ring-1 ring-amber-200" data-testid={testId.replace('-status', '-reason')}>
        {reason}
      </p>
    </details>
  );
}

function DetectorLine({ detector }: { detector: DetectorStatus }) {
  if (detector.state !== 'ready') return <ModelPartLine name="Detector" testId="detector-status" ready={null} reason={detector.reason} />;
  const { backend } = detector;
  const where = `${backend.provider.toUpperCase()}, ${backend.dtypes.detector}${backend.fallbackFrom ? `; ${backend.reason}` : ''}`;
  const detail = `(${where}): every shared photo is described from the objects it finds.`;
  return <ModelPartLine name="Detector" testId="detector-status" ready={{ word: 'ready', title: `Object detector ready ${detail}`, detail }} reason="" />;
}

/** The captioning model, when there is one: in use, or why not (the grounded captions then stay). */
function CaptionerLine({ captioner }: { captioner: CaptionerStatus }) {
  if (captioner.state === 'none') return null;
  if (captioner.state !== 'ready') return <ModelPartLine name="Captioner" testId="captioner-status" ready={null} reason={captioner.reason} />;
  const where = `${captioner.id}, ${captioner.provider.toUpperCase()}, ${captioner.dtype}`;
  const detail = `(${where}): it writes the captions of shared photos; the Inspector keeps the grounded caption beside it.`;
  return <ModelPartLine name="Captioner" testId="captioner-status" ready={{ word: 'in use', title: `Captioner in use ${detail}`, detail }} reason="" />;
}

/**
 * The pack, backend, detector and pool in use, the load's progress, and the settings. In kiosk mode
 * (`kiosk`) the description and the backend's explanation are left out, and while `configLocked` the
 * settings and the pool button are hidden. The visitor view (`presenter` false) keeps one short row: whether
 * the model is ready, to sit in the header; Pool, Credits and Settings are then in the page's menu, and the
 * settings show here while open.
 */
/** Which parts of the reply system are trained and which are zero-shot. */
/** The pool's CLIP rows computed after Ready, while they are: clip-sim answers from those there, clip-map and DE++ wait, the others read none. */
function PoolRowsLine({ status }: { status: PoolRowsStatus }) {
  const { texts, images } = status;
  if (texts.done >= texts.total && images.done >= images.total) return null;
  const count = (part: { done: number; total: number }, noun: string) =>
    `${part.done.toLocaleString('en-US')} of ${part.total.toLocaleString('en-US')} ${noun}`;
  const parts = [texts.total > 0 ? count(texts, 'texts') : null, images.total > 0 ? count(images, 'images') : null].filter(Boolean).join(', ');
  return (
    <span className="hidden basis-full text-xs text-slate-700 sm:inline" data-testid="pool-rows-line">
      Embedding the pool in the background, most used first ({parts}): CLIP similarity answers from those done so far, clip-map and DE++ once all are; the other
      methods answer now.
    </span>
  );
}

function HeadsLine({ hasPythonHeads, status }: { hasPythonHeads: boolean; status: LocalHeadsStatus | null }) {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  let text: string;
  if (hasPythonHeads) text = 'Intent, DE++ and clip-map: trained heads (Python).';
  else if (!status) text = 'Intent and ranking: zero-shot (majority intent, CLIP similarity).';
  else if (status.state === 'training')
    text = `Intent and ranking: zero-shot for now; training clip-map and the intent head in this browser: ${status.phase} (${status.done}/${status.total}).`;
  else if (status.state === 'trained')
    text = `Intent and clip-map: trained in this browser${status.fromCache ? ' (cached)' : ''} (valid intent accuracy ${pct(status.figures.intent.validAccuracy)}, clip-map text R@1 ${pct(status.figures.clipMap.text.validR1)}) · DE++: zero-shot (needs the Python heads).`;
  else text = status.reason;
  return (
    // A row of its own from a tablet up; on a phone the status area keeps its height (the methods note in Settings says it too).
    <span
      className="hidden basis-full text-xs text-slate-700 sm:inline"
      data-testid="heads-line"
      data-state={hasPythonHeads ? 'python' : (status?.state ?? 'zero-shot')}
    >
      {text}
    </span>
  );
}

export function ModelStatus({ kiosk, configLocked: locked, presenter = true }: { kiosk: boolean; configLocked: boolean; presenter?: boolean }) {
  const { packs, activePackId, phase, files, backend, loadMs, loadSteps, pool, error } = useModelStore(
    useShallow((s) => ({
      packs: s.packs,
      activePackId: s.activePackId,
      phase: s.phase,
      files: s.files,
      backend: s.backend,
      loadMs: s.loadMs,
      loadSteps: s.loadSteps,
      pool: s.pool,
      error: s.error,
    })),
  );
  const packId = useSettingsStore((s) => s.packId);
  const forceWasm = useSettingsStore((s) => s.forceWasm);
  const boothStrict = useSettingsStore((s) => s.boothStrict);
  const setBoothStrict = useSettingsStore((s) => s.setBoothStrict);
  const setForceWasm = useSettingsStore((s) => s.setForceWasm);
  const method = useSettingsStore((s) => s.method);
  const setMethod = useSettingsStore((s) => s.setMethod);
  const methods = useModelStore((s) => s.methods);
  const detector = useModelStore((s) => s.detector);
  const localHeads = useModelStore((s) => s.localHeads);
  const captioner = useModelStore((s) => s.captioner);
  const poolRows = useModelStore((s) => s.poolRows);
  const active = packs.find((p) => p.id === activePackId);
  const settingsOpen = usePanelStore((s) => s.settingsOpen);
  // In the visitor's header row, open settings, progress bars or an error take a row of their own below it.
  const expanded = (settingsOpen && !locked) || phase === 'error' || (phase === 'loading' && Object.keys(files).length > 0);
  const view = useViewStore((s) => s.view);
  const setView = useViewStore((s) => s.setView);

  return (
    <section
      aria-label="Model status"
      className={
        presenter
          ? // It gives way (and scrolls) before the chat does: the chat below keeps a floor of its own.
            'flex min-h-0 flex-col gap-2 overflow-y-auto rounded-xl bg-white p-3 text-sm shadow-sm'
          : // Open, it scrolls within what the header row and the chat's floor (App) leave of the screen.
            `flex min-w-0 flex-1 flex-wrap items-center gap-2 text-sm ${expanded ? 'order-last max-h-[calc(100dvh-min(20rem,50dvh)-5rem)] basis-full overflow-y-auto' : ''}`
      }
    >
      <div className={presenter ? 'flex flex-wrap items-center gap-x-4 gap-y-1' : 'contents'}>
        {presenter && (
          <>
            <span>
              Pack: <strong data-testid="pack-name">{active?.name ?? '—'}</strong>
            </span>
            <span>
              Backend: <strong data-testid="backend">{backend ? backend.provider.toUpperCase() : '—'}</strong>
              {backend && !kiosk && (
                <span className="hidden text-slate-600 sm:inline">
                  {' '}
                  ({backend.reason}; text {backend.dtypes.text_model}, vision {backend.dtypes.vision_model})
                </span>
              )}
            </span>
          </>
        )}
        <span
          role="status"
          data-testid="model-phase"
          // Where the load's time went, for a presenter asked why Ready took as long as it did (and for bench -- browser).
          title={phase === 'ready' ? `Loaded in ${((loadMs ?? 0) / 1000).toFixed(2)} s: ${describeLoadSteps(loadSteps)}` : undefined}
        >
          {phase === 'loading' && 'Loading…'}
          {phase === 'ready' && (presenter ? `Ready in ${((loadMs ?? 0) / 1000).toFixed(2)} s` : 'Ready')}
          {phase === 'error' && 'Not loaded'}
        </span>
        {presenter && phase === 'ready' && detector && <DetectorLine detector={detector} />}
        {presenter && phase === 'ready' && captioner && <CaptionerLine captioner={captioner} />}
        {presenter && pool && (
          <span data-testid="pool-line">
            Pool: <strong>{pool.name}</strong>
            {/* Counts hidden on a phone, so the detector's line shares this row and the status area is no taller. */}
            <span className="hidden sm:inline" data-testid="pool-counts">
              {' '}
              ({pool.images} images, {pool.texts} texts)
            </span>
          </span>
        )}
        {presenter && phase === 'ready' && methods && <HeadsLine hasPythonHeads={methods.available.includes('depp')} status={localHeads} />}
        {presenter && phase === 'ready' && poolRows && <PoolRowsLine status={poolRows} />}
        {/* On a phone the buttons keep a row of their own, as they had before the detector's line. */}
        {presenter && (
          <span className="flex basis-full flex-wrap gap-x-4 gap-y-1 sm:basis-auto">
            {!locked && (
              <button type="button" onClick={() => panelActions.openPool('pool')} className="rounded-lg border border-slate-300 px-2 py-0.5 hover:bg-slate-100">
                Pool and datasets
              </button>
            )}
            <button
              type="button"
              onClick={() => panelActions.openPool('credits')}
              className="rounded-lg border border-slate-300 px-2 py-0.5 hover:bg-slate-100"
            >
              Credits
            </button>
          </span>
        )}
      </div>
      {presenter && active?.description && !kiosk && <p className="hidden text-xs text-slate-600 sm:block">{active.description}</p>}
      {phase === 'error' && error && (
        <p role="alert" className="basis-full rounded-lg bg-red-50 px-3 py-2 text-red-900 ring-1 ring-red-200">
          {error}
        </p>
      )}
      {phase === 'loading' && Object.keys(files).length > 0 && (
        <ul className="flex basis-full flex-col gap-1" aria-label="Model files">
          {Object.entries(files).map(([file, load]) => (
            <FileBar key={file} file={file} load={load} />
          ))}
        </ul>
      )}
      {!locked && (presenter || settingsOpen) && (
        <details
          className={presenter ? undefined : 'basis-full rounded-xl bg-white p-3 shadow-sm'}
          open={settingsOpen}
          onToggle={(e) => {
            panelActions.setSettingsOpen(e.currentTarget.open);
            // The status area may be scrolled to make room for the chat: bring what was just opened into it.
            if (e.currentTarget.open) e.currentTarget.scrollIntoView({ block: 'start' });
          }}
        >
          <summary className="cursor-pointer text-slate-700">Settings</summary>
          <div className="mt-2 flex flex-wrap items-center gap-4">
            <label className="flex items-center gap-2">
              View
              <select
                value={view}
                onChange={(e) => setView(e.target.value as ViewMode)}
                aria-describedby="view-note"
                className="rounded border border-slate-300 px-2 py-1"
              >
                <option value="visitor">Visitor</option>
                <option value="presenter">Presenter</option>
              </select>
            </label>
            <p id="view-note" className="w-full text-xs text-slate-600">
              The presenter view adds the pack and backend, a line under each reply on how it was made, and “What would you have answered?”. This device
              remembers the choice; <code>?view=presenter</code> or <code>?view=visitor</code> in the address sets it too.
            </p>
            <label className="flex items-center gap-2">
              Model pack
              <select
                value={packId ?? activePackId ?? ''}
                onChange={(e) => void choosePackAndLoad(e.target.value)}
                className="rounded border border-slate-300 px-2 py-1"
              >
                {packs.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            </label>
            <label className="flex items-center gap-2">
              <input
                type="checkbox"
                checked={forceWasm}
                onChange={(e) => {
                  setForceWasm(e.target.checked);
                  void loadModels();
                }}
              />
              Run on WASM only (skip WebGPU)
            </label>
            <label className="flex items-center gap-2" title="Always on in kiosk mode. Every message is screened either way.">
              <input type="checkbox" checked={boothStrict} onChange={(e) => setBoothStrict(e.target.checked)} data-testid="booth-strict" />
              Booth strictness: also leave out borderline replies (mild insults, drinking, religion, party politics)
            </label>
            {methods && (
              <label className="flex items-center gap-2">
                Response method
                <select
                  value={method ?? ''}
                  onChange={(e) => setMethod(e.target.value ? (e.target.value as typeof methods.preferred) : null)}
                  className="rounded border border-slate-300 px-2 py-1"
                >
                  <option value="">Best available ({methods.preferred})</option>
                  {methods.available.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              </label>
            )}
            {methods && (
              <p className="w-full text-xs text-slate-600" data-testid="methods-note">
                {methods.note} The method applies to the next reply.
              </p>
            )}
            {methods && !methods.available.includes('depp') && localHeads?.state !== 'trained' && localHeads?.state !== 'training' && (
              <button type="button" className="rounded-lg border border-slate-300 px-2 py-0.5 hover:bg-slate-100" onClick={trainLocalHeads}>
                Train clip-map and the intent head in this browser
              </button>
            )}
            {localHeads?.state === 'training' && (
              <button type="button" className="rounded-lg border border-slate-300 px-2 py-0.5 hover:bg-slate-100" onClick={cancelLocalTraining}>
                Cancel training
              </button>
            )}
            <PackDownloads />
          </div>
        </details>
      )}
    </section>
  );
}
