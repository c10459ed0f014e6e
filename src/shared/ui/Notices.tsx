import { noticeActions, useNoticeStore } from '../stores/noticeStore';

/** The notices of every feature, newest last; errors are alerts, the rest status messages. */
export function Notices() {
  const notices = useNoticeStore((s) => s.notices);
  if (notices.length === 0) return null;
  return (
    <ul className="flex flex-col gap-2 px-4 pt-3">
      {notices.map((n) => (
        <li
          key={n.id}
          role={n.tone === 'error' ? 'alert' : 'status'}
          className={`flex items-start justify-between gap-3 rounded-lg px-3 py-2 text-sm ${n.tone === 'error' ? 'bg-red-50 text-red-900 ring-1 ring-red-200' : 'bg-blue-50 text-blue-900'}`}
        >
          <span className="flex-1">{n.text}</span>
          {n.action && (
            <button
              type="button"
              onClick={n.action.run}
              className="rounded border border-current px-2 py-0.5 font-medium hover:bg-white/60 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600"
            >
              {n.action.label}
            </button>
          )}
          <button
            type="button"
            onClick={() => noticeActions.dismiss(n.id)}
            aria-label="Dismiss notice"
            className="font-bold focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600"
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
