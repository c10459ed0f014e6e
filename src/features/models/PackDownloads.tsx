import { useEffect, useState } from 'react';
import { type ModelDtype } from '../../engine/onnx/executionPlan';
import { type RemotePack, checkHubUrl, formatBytes } from '../../engine/pack/hub';
import { downloadOriginAllowed } from '../../engine/securityPolicy';
import { useModelStore } from '../../shared/stores/modelStore';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import { choosePackAndLoad, loadModels } from './modelLoader';
import {
  type PackDownloadView,
  deleteAndDownloadAgain,
  deletePackDownload,
  pausePackDownload,
  remotePackSizes,
  resumePackDownload,
  startPackDownload,
  usePackDownloads,
} from './packDownloads';

const BUTTON = 'rounded-lg border border-slate-300 px-2 py-0.5 hover:bg-slate-100 disabled:opacity-50';

function Bar({ label, loaded, total }: { label: string; loaded: number; total: number | null }) {
  const percent = total ? Math.min(100, Math.floor((loaded / total) * 100)) : 0;
  return (
    <li className="flex items-center gap-2 text-xs">
      <span className="w-56 truncate" title={label}>
        {label}
      </span>
      <progress className="h-2 flex-1" max={100} value={percent} aria-label={`${label}: ${percent}%`} />
      <span className="w-32 text-right tabular-nums">
        {formatBytes(loaded)}
        {total ? ` / ${formatBytes(total)}` : ''}
      </span>
    </li>
  );
}

function HubAddress() {
  const hubUrl = useSettingsStore((s) => s.hubUrl);
  const setHubUrl = useSettingsStore((s) => s.setHubUrl);
  const [draft, setDraft] = useState(hubUrl);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setDraft(hubUrl), [hubUrl]);
  return (
    <form
      className="flex flex-wrap items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        // Checked here, not only at Download: an address with credentials must never be stored.
        const checked = checkHubUrl(draft, downloadOriginAllowed);
        if (!checked.ok) {
          setError(checked.reason);
          return;
        }
        setError(null);
        setHubUrl(checked.url);
      }}
    >
      <label className="flex items-center gap-2">
        Hub address
        <input
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          className="w-72 rounded border border-slate-300 px-2 py-1"
          data-testid="hub-address"
          spellCheck={false}
        />
      </label>
      <button type="submit" className={BUTTON} disabled={draft === hubUrl}>
        Save
      </button>
      <span className="w-full text-xs text-slate-600">
        The Hugging Face hub, or a mirror on this machine that serves the same addresses ({'{hub}/{repo}/resolve/main/{file}'}), such as http://127.0.0.1:8080.
      </span>
      {error && (
        <p role="alert" className="w-full rounded bg-red-50 px-2 py-1 text-red-900 ring-1 ring-red-200">
          {error}
        </p>
      )}
    </form>
  );
}

function PackRow({ pack, bytes, dtype, view }: { pack: RemotePack; bytes: number; dtype: ModelDtype; view: PackDownloadView | undefined }) {
  const phase = view?.phase ?? 'idle';
  const activePackId = useModelStore((s) => s.activePackId);
  const captionerId = useModelStore((s) => (s.captioner?.state === 'ready' ? s.captioner.id : null));
  const size = view?.packTotal ?? bytes;
  const approx = view?.packTotal ? '' : '≈ ';
  const stored = view?.storedBytes ?? 0;
  return (
    <li className="flex flex-col gap-1 rounded-lg border border-slate-200 p-2" data-testid={`download-${pack.id}`}>
      <div className="flex flex-wrap items-center gap-2">
        <strong>{pack.name}</strong>
        <span className="text-xs text-slate-600">
          {pack.repo} · {pack.license} · {view?.dtypes ? [...new Set(Object.values(view.dtypes))].join('/') : dtype} for this browser
        </span>
      </div>
      <p className="text-xs text-slate-600">{pack.description}</p>
      <div className="flex flex-wrap items-center gap-2" data-testid="download-phase" data-phase={phase}>
        {phase === 'idle' && (
          <button type="button" className={BUTTON} onClick={() => void startPackDownload(pack.id)}>
            Download {pack.shortName} ({approx}
            {formatBytes(size)})
          </button>
        )}
        {phase === 'checking' && <span role="status">Asking the hub what to download…</span>}
        {phase === 'downloading' && (
          <>
            <span role="status">
              Downloading: {formatBytes(view?.packLoaded ?? 0)} of {approx}
              {formatBytes(size)}
            </span>
            <button type="button" className={BUTTON} onClick={() => pausePackDownload(pack.id)}>
              Pause
            </button>
          </>
        )}
        {(phase === 'paused' || phase === 'error') && stored > 0 && (
          <>
            <span role="status">
              {phase === 'paused' ? 'Paused' : 'Stopped'}: {formatBytes(stored)} of {approx}
              {formatBytes(size)} stored
            </span>
            <button type="button" className={BUTTON} onClick={() => void resumePackDownload(pack.id)}>
              Resume
            </button>
          </>
        )}
        {phase === 'error' && stored === 0 && (
          <button type="button" className={BUTTON} onClick={() => void startPackDownload(pack.id)}>
            Try again
          </button>
        )}
        {phase === 'complete' && (
          <>
            <span role="status">Stored in this browser: {formatBytes(stored)}. It needs no network.</span>
            {view?.loadFailure && (
              <button type="button" className={BUTTON} onClick={() => void deleteAndDownloadAgain(pack.id)}>
                Delete and download again
              </button>
            )}
            {!view?.loadFailure && pack.kind === 'clip' && activePackId !== pack.id && (
              <button type="button" className={BUTTON} onClick={() => void choosePackAndLoad(pack.id)}>
                Use it
              </button>
            )}
            {pack.kind === 'clip' && activePackId === pack.id && <span className="text-xs text-slate-600">In use.</span>}
            {!view?.loadFailure && pack.kind === 'captioner' && captionerId !== pack.id && (
              <button type="button" className={BUTTON} onClick={() => void loadModels()}>
                Use it (reloads the models)
              </button>
            )}
            {pack.kind === 'captioner' && captionerId === pack.id && (
              <span className="text-xs text-slate-600">In use: it writes the captions of shared photos.</span>
            )}
          </>
        )}
        {phase !== 'idle' && phase !== 'checking' && (stored > 0 || phase === 'downloading') && (
          <button type="button" className={BUTTON} onClick={() => void deletePackDownload(pack.id)}>
            {phase === 'complete' ? 'Delete' : 'Cancel and delete'}
          </button>
        )}
      </div>
      {phase === 'complete' && view?.loadFailure && (
        <p role="alert" className="rounded bg-red-50 px-2 py-1 text-xs text-red-900 ring-1 ring-red-200" data-testid="load-failure">
          It could not be loaded, so the page went back to the offline pack: {view.loadFailure} Delete it and download it again.
        </p>
      )}
      {view?.message && (
        <p
          role={phase === 'error' ? 'alert' : 'status'}
          className={`rounded px-2 py-1 text-xs ${phase === 'error' ? 'bg-red-50 text-red-900 ring-1 ring-red-200' : 'bg-slate-50 text-slate-700'}`}
          data-testid="download-message"
        >
          {view.message}
        </p>
      )}
      {(phase === 'downloading' || phase === 'paused' || phase === 'error') && view && view.files.length > 0 && (
        <ul className="flex flex-col gap-0.5" aria-label={`Files of ${pack.name}`}>
          {view.files.map((f) => (
            <Bar key={f.path} label={f.path} loaded={f.loaded} total={f.total} />
          ))}
        </ul>
      )}
    </li>
  );
}

/**
 * Settings → Model packs: download real packs from the hub, see what is stored, delete it. Folded
 * by default so the settings stay short (the composer must stay on screen); open while a download
 * runs, is paused or has failed.
 */
export function PackDownloads() {
  const packs = usePackDownloads((s) => s.packs);
  const estimate = usePackDownloads((s) => s.estimate);
  const persisted = usePackDownloads((s) => s.persisted);
  const [remote, setRemote] = useState<{ pack: RemotePack; bytes: number; dtype: ModelDtype }[]>([]);
  const busy = Object.values(packs).filter((v) => v.phase === 'downloading' || v.phase === 'checking' || v.phase === 'paused' || v.phase === 'error').length;
  const [open, setOpen] = useState(busy > 0);
  useEffect(() => {
    void remotePackSizes().then(setRemote);
  }, []);
  useEffect(() => {
    if (busy > 0) setOpen(true);
  }, [busy]);
  const stored = Object.values(packs).filter((v) => v.phase === 'complete').length;
  return (
    <details className="w-full border-t border-slate-200 pt-2" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cursor-pointer font-semibold">
        Model packs to download
        <span className="font-normal text-slate-600">{busy > 0 ? ` (${busy} in progress)` : stored > 0 ? ` (${stored} stored)` : ''}</span>
      </summary>
      <section aria-label="Model packs to download" className="mt-2 flex w-full flex-col gap-2">
        <HubAddress />
        <ul className="flex flex-col gap-2">
          {remote.map((r) => (
            <PackRow key={r.pack.id} pack={r.pack} bytes={r.bytes} dtype={r.dtype} view={packs[r.pack.id]} />
          ))}
        </ul>
        <p className="text-xs text-slate-600" data-testid="storage-estimate">
          {estimate
            ? `This site uses ${formatBytes(estimate.usage)} of the ${formatBytes(estimate.quota)} the browser allows it.`
            : 'This browser does not say how much it lets the page store.'}
          {persisted === true && ' The browser keeps it even when space runs low.'}
        </p>
      </section>
    </details>
  );
}
