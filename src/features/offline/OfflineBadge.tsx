import { useShallow } from 'zustand/react/shallow';
import { applyUpdate } from './offlineController';
import { useModelStore } from '../../shared/stores/modelStore';
import { useOfflineStore } from './offlineStore';

const PILL = 'rounded-full px-2.5 py-0.5 text-xs font-medium';

/** The header badge: whether the demo would load with no network, and what to do when it would not. */
export function OfflineBadge() {
  const { phase, percent, message, version, packId, updateWaiting, note, persisted } = useOfflineStore(
    useShallow((s) => ({
      phase: s.phase,
      percent: s.percent,
      message: s.message,
      version: s.version,
      packId: s.packId,
      updateWaiting: s.updateWaiting,
      note: s.note,
      persisted: s.persisted,
    })),
  );
  // The detector is kept at install with the default pack whenever the build has one; a detector that did not load is not claimed.
  const withDetector = useModelStore((s) => s.detector?.state === 'ready');
  if (phase === 'off' && !updateWaiting) return null;
  const readyDetail = `Version ${version ?? '?'}: the app, the ${packId ?? ''} pack${withDetector ? ', the object detector' : ''} and the demo pool load with no network.${persisted === false ? ' The browser may clear this copy if disk space runs low.' : ''}`;
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="offline">
      {/* As wide as its widest state ("Caching offline… 100%", 160 px), on one line, so the header keeps its rows as it changes. */}
      <span
        role="status"
        data-testid="offline-badge"
        className="inline-block min-w-[10rem] whitespace-nowrap tabular-nums"
        title={phase === 'ready' ? readyDetail : (message ?? undefined)}
      >
        {phase === 'caching' && <span className={`${PILL} bg-slate-100 text-slate-700`}>Caching offline…{percent !== null && ` ${percent}%`}</span>}
        {phase === 'ready' && <span className={`${PILL} bg-emerald-100 text-emerald-900`}>Offline ready</span>}
        {phase === 'unavailable' && <span className={`${PILL} bg-slate-100 text-slate-700`}>Online only</span>}
        {phase === 'failed' && <span className={`${PILL} bg-amber-100 text-amber-900`}>Not available offline</span>}
      </span>
      {updateWaiting && (
        <button
          type="button"
          onClick={applyUpdate}
          className={`${PILL} bg-blue-600 text-white hover:bg-blue-700 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600`}
        >
          Update ready: reload
        </button>
      )}
      {phase === 'failed' && message && (
        <p role="alert" className="w-full text-xs text-amber-900">
          {message}
        </p>
      )}
      {note && phase !== 'failed' && <p className="w-full text-xs text-slate-600">{note}</p>}
    </div>
  );
}
