import type { SessionMeans } from '../../engine/metrics/sessionMetrics';
import { describeMeans } from '../../shared/scores/metricText';

const WIDTH = 320;
const HEIGHT = 120;
const PAD = { left: 28, right: 8, top: 8, bottom: 18 };

/** The chart's series, all on a 0-100 scale; colours keep 3:1 contrast on white (WCAG non-text). */
const SERIES = [
  { name: 'MM-Relevance', colour: '#1d4ed8', dash: '', value: (m: SessionMeans) => m.mmRelevance },
  { name: 'Intent F1 (%)', colour: '#b45309', dash: '6 3', value: (m: SessionMeans) => m.intentF1 },
  { name: 'R@1 text (%)', colour: '#047857', dash: '2 3', value: (m: SessionMeans) => (m.recallAt1.text === null ? null : 100 * m.recallAt1.text) },
  { name: 'R@1 image (%)', colour: '#a21caf', dash: '8 3 2 3', value: (m: SessionMeans) => (m.recallAt1.image === null ? null : 100 * m.recallAt1.image) },
] as const;

/** A line per running mean, one point per scored turn; a series starts at its first defined point. */
export function RunningMeansChart({ points }: { points: readonly SessionMeans[] }) {
  const last = points.at(-1);
  if (!last) return null;
  const x = (i: number) => PAD.left + (points.length === 1 ? (WIDTH - PAD.left - PAD.right) / 2 : (i * (WIDTH - PAD.left - PAD.right)) / (points.length - 1));
  const y = (v: number) => PAD.top + ((100 - v) * (HEIGHT - PAD.top - PAD.bottom)) / 100;
  return (
    <figure className="flex flex-col gap-1">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        className="w-full max-w-md"
        role="img"
        aria-label={`Running means after each turn; now ${describeMeans(last)}`}
        data-testid="running-means-chart"
      >
        {[0, 50, 100].map((v) => (
          <g key={v}>
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(v)} y2={y(v)} stroke="#cbd5e1" strokeWidth={1} />
            <text x={PAD.left - 4} y={y(v) + 3} textAnchor="end" fontSize={9} fill="#475569">
              {v}
            </text>
          </g>
        ))}
        <text x={WIDTH - PAD.right} y={HEIGHT - 4} textAnchor="end" fontSize={9} fill="#475569">
          turn {points.length}
        </text>
        <text x={PAD.left} y={HEIGHT - 4} fontSize={9} fill="#475569">
          turn 1
        </text>
        {SERIES.map((s) => {
          const defined = points.flatMap((p, i) => {
            const v = s.value(p);
            return v === null ? [] : [[x(i), y(v)] as const];
          });
          if (defined.length === 0) return null;
          return (
            <g key={s.name} data-series={s.name}>
              <polyline
                points={defined.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ')}
                fill="none"
                stroke={s.colour}
                strokeWidth={2}
                strokeDasharray={s.dash || undefined}
              />
              {defined.map(([px, py], i) => (
                <circle key={i} cx={px} cy={py} r={2.5} fill={s.colour} />
              ))}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul className="flex flex-wrap gap-x-4 text-xs text-slate-700" aria-label="Chart legend">
          {SERIES.map((s) => (
            <li key={s.name} className="flex items-center gap-1">
              <svg width="18" height="6" aria-hidden="true">
                <line x1="0" x2="18" y1="3" y2="3" stroke={s.colour} strokeWidth={2} strokeDasharray={s.dash || undefined} />
              </svg>
              {s.name}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
