import { useEffect, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { POOL_BASE_URL } from '../../shared/demoPool';
import { useModelStore } from '../../shared/stores/modelStore';
import { panelActions, usePanelStore } from '../../shared/stores/panelStore';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import { Credits } from './Credits';
import { DatasetPicker } from './DatasetPicker';
import { cancelDatasetImport, importDataset, loadCredits, refreshDatasets, removeDataset, selectPool } from './poolController';
import { usePoolStore } from './poolStore';

function Progress({ label, step, loaded, total, onCancel }: { label: string; step: string; loaded: number; total: number; onCancel?: () => void }) {
  return (
    <div className="text-sm">
      <div role="status" data-testid="pool-progress">
        <div className="flex justify-between">
          <span>
            {label}: {step}
          </span>
          <span>{total ? `${loaded} of ${total}` : ''}</span>
        </div>
        <progress className="h-1.5 w-full" max={total || 1} value={loaded} aria-label={`${label}: ${step}`} />
      </div>
      {onCancel && (
        <button type="button" onClick={onCancel} className="mt-1 rounded border border-slate-300 px-2 py-0.5 text-xs hover:bg-slate-100">
          Cancel
        </button>
      )}
    </div>
  );
}

/**
 * The pool dialog: which pool replies come from, datasets stored here, and the demo pool's credits.
 * While `configLocked` (kiosk mode, until Ctrl+Alt+S unlocks it) only the credits are shown.
 */
export function PoolPanel({ configLocked: locked }: { configLocked: boolean }) {
  const { datasets, importing, switching, credits, textCredits, creditsError, lastImport } = usePoolStore(useShallow((s) => s));
  const panelOpen = usePanelStore((s) => s.poolOpen);
  const chosenTab = usePanelStore((s) => s.poolTab);
  const pool = useModelStore((s) => s.pool);
  const savedPoolId = useSettingsStore((s) => s.poolId);
  const poolId = switching?.poolId ?? savedPoolId;
  const dialog = useRef<HTMLDialogElement>(null);
  const tab = locked ? 'credits' : chosenTab;

  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (panelOpen && !el.open) {
      el.showModal();
      void refreshDatasets();
    }
    if (!panelOpen && el.open) el.close();
  }, [panelOpen]);
  useEffect(() => {
    if (panelOpen && tab === 'credits') void loadCredits();
  }, [panelOpen, tab]);

  const tabClass = (t: string) =>
    `rounded-t-lg px-3 py-1.5 text-sm ${tab === t ? 'bg-white font-semibold ring-1 ring-slate-200' : 'text-slate-700 hover:bg-slate-100'}`;
  return (
    <dialog
      ref={dialog}
      onClose={() => panelActions.closePool()}
      aria-labelledby="pool-title"
      className="m-auto h-[85dvh] w-[min(56rem,95vw)] rounded-xl bg-slate-50 p-0 shadow-xl backdrop:bg-slate-900/40"
    >
      <div className="flex h-full flex-col gap-3 p-4">
        <header className="flex items-center justify-between">
          <h2 id="pool-title" className="text-lg font-semibold">
            Candidate pool
          </h2>
          <button type="button" onClick={() => panelActions.closePool()} className="rounded-lg border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100">
            Close
          </button>
        </header>
        {!locked && (
          <div role="tablist" aria-label="Pool views" className="flex gap-1 border-b border-slate-200">
            <button type="button" role="tab" aria-selected={tab === 'pool'} className={tabClass('pool')} onClick={() => panelActions.setPoolTab('pool')}>
              Pool and datasets
            </button>
            <button
              type="button"
              role="tab"
              aria-selected={tab === 'credits'}
              className={tabClass('credits')}
              onClick={() => panelActions.setPoolTab('credits')}
            >
              Credits
            </button>
          </div>
        )}
        {tab === 'credits' ? (
          <Credits items={credits} texts={textCredits} error={creditsError} imageUrl={(item) => `${POOL_BASE_URL}${item.file}`} />
        ) : (
          <div className="flex min-h-0 flex-col gap-3 overflow-y-auto">
            {pool && (
              <p className="text-sm" data-testid="pool-summary">
                Replies come from <strong>{pool.name}</strong>: {pool.images} images and {pool.texts} texts
                {` (embeddings: ${pool.embeddings.fromFile} precomputed, ${pool.embeddings.fromCache} cached, ${pool.embeddings.computed} computed now)`}.
              </p>
            )}
            {switching && <Progress label={`Switching to ${switching.name}`} step={switching.step} loaded={switching.loaded} total={switching.total} />}
            <fieldset className="flex flex-col gap-1 rounded-lg bg-white p-3 ring-1 ring-slate-200">
              <legend className="px-1 text-sm font-medium">Reply from</legend>
              <label className="flex items-center gap-2 text-sm">
                <input type="radio" name="pool" checked={poolId === 'demo'} onChange={() => void selectPool('demo')} disabled={!!switching} />
                Demo pool (shipped with the app)
              </label>
              {datasets.map((d) => (
                <div key={d.id} className="flex flex-wrap items-center gap-2 text-sm" data-testid="stored-dataset">
                  <label className="flex items-center gap-2">
                    <input
                      type="radio"
                      name="pool"
                      checked={poolId === d.id}
                      disabled={d.status !== 'ready' || !!switching}
                      onChange={() => void selectPool(d.id)}
                    />
                    <span>{d.name}</span>
                  </label>
                  <span className="text-slate-600">
                    {d.images.length} images · {d.texts.length} texts · {d.splits.reduce((n, s) => n + s.dialogues, 0)} dialogues ·{' '}
                    <span data-testid="dataset-status">
                      {d.status === 'ready'
                        ? 'ready'
                        : d.status === 'embedding'
                          ? 'embedding (continues automatically)'
                          : `interrupted while copying (${d.copied} of ${d.plannedImages}); choose the folder again`}
                    </span>
                  </span>
                  <button
                    type="button"
                    onClick={() => void removeDataset(d.id)}
                    className="rounded border border-slate-300 px-2 py-0.5 text-xs hover:bg-red-50"
                    aria-label={`Delete ${d.name}`}
                  >
                    Delete
                  </button>
                </div>
              ))}
            </fieldset>
            {importing && (
              <Progress
                label={`Loading ${importing.name}`}
                step={importing.step}
                loaded={importing.loaded}
                total={importing.total}
                onCancel={cancelDatasetImport}
              />
            )}
            <DatasetPicker disabled={!!importing} onChosen={(name, files) => void importDataset(name, files)} />
            {lastImport && lastImport.problems.length > 0 && (
              <details className="text-sm">
                <summary>
                  {lastImport.problems.length} files of “{lastImport.name}” were left out
                </summary>
                <ul className="list-disc pl-5 text-slate-700">
                  {lastImport.problems.slice(0, 50).map((p) => (
                    <li key={p}>{p}</li>
                  ))}
                </ul>
              </details>
            )}
          </div>
        )}
      </div>
    </dialog>
  );
}
