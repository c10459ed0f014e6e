import type { PhotoDetections } from '../../protocol/protocol';

/**
 * A detection score to two decimals, rounded down: 0.496 shows as 0.49, so a score shown as 0.50 is
 * always one the caption's 0.50 bar counts as reached.
 */
export function scoreText(score: number): string {
  return (Math.floor(score * 100 + 1e-9) / 100).toFixed(2);
}

const percent = (value: number, of: number) => `${Math.max(0, Math.min(100, (value / of) * 100))}%`;

/** Boxes over the photo, placed in percent of its size, so they follow whatever size it is shown at. */
export function DetectionOverlay({ detections }: { detections: PhotoDetections }) {
  const { width, height } = detections;
  return (
    <div className="pointer-events-none absolute inset-0" aria-hidden="true">
      {detections.objects.map((o, i) => (
        <div
          key={i}
          data-testid="detection-box"
          data-label={o.label}
          className="absolute rounded-sm border-2 border-amber-300 shadow-[0_0_0_1px_rgba(15,23,42,0.8)]"
          style={{
            left: percent(o.box.x1, width),
            top: percent(o.box.y1, height),
            width: percent(o.box.x2 - o.box.x1, width),
            height: percent(o.box.y2 - o.box.y1, height),
          }}
        >
          {/* Anchored on the side with room, so a label of a box by the right edge does not spill past the photo. */}
          <span
            className={`absolute top-0 whitespace-nowrap bg-amber-300 px-1 text-xs font-semibold leading-4 text-slate-950 ${o.box.x1 > 0.7 * width ? 'right-0 rounded-bl-sm' : 'left-0 rounded-br-sm'}`}
          >
            {o.label} {scoreText(o.score)}
          </span>
        </div>
      ))}
    </div>
  );
}
