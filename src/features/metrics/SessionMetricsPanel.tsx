import { useMemo } from 'react';
import { runningMeans } from '../../engine/metrics/sessionMetrics';
import { sessionMetricsActions, useSessionMetricsStore } from '../../stores/sessionMetricsStore';
import { MetricsHelp } from './MetricsHelp';
import { RunningMeansChart } from './RunningMeansChart';
import { METRIC_HELP, formatMmRelevance, formatPercent, formatRecall } from './metricText';

/**
 * The running means of every turn scored in this visit (replays and the visitor's answers), with a
 * chart; `compact` (under the chat) folds the chart away so the conversation keeps its room.
 */
export function SessionMetricsPanel({ compact = false }: { compact?: boolean }) {
  const turns = useSessionMetricsStore((s) => s.turns);
  const points = useMemo(() => runningMeans(turns.map((t) => t.figures)), [turns]);
  const means = points.at(-1);
  if (!means) return null;
  const fromChat = turns.filter((t) => t.source === 'chat').length;
  return (
    <section aria-labelledby="session-metrics-title" className="flex flex-col gap-2 rounded-xl bg-white p-3 shadow-sm" data-testid="session-metrics">
      <div className="flex items-center justify-between gap-2">
        <h2 id="session-metrics-title" className="text-sm font-semibold">
          Running means over {means.turns} scored turn{means.turns === 1 ? '' : 's'}
          {fromChat > 0 && <span className="font-normal text-slate-600"> ({fromChat} from your answers)</span>}
        </h2>
        <button type="button" onClick={() => sessionMetricsActions.reset()} className="rounded-lg border border-slate-300 px-2 py-1 text-xs hover:bg-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600">
          Reset means
        </button>
      </div>
      <dl className="flex flex-wrap gap-x-6 gap-y-1 text-sm">
        <div className="flex gap-1" title={METRIC_HELP.mmRelevance}>
          <dt className="text-slate-700">MM-Relevance</dt>
          <dd className="font-semibold tabular-nums" data-testid="mean-mm-relevance">{formatMmRelevance(means.mmRelevance)}</dd>
          <dd className="text-slate-600">/ 100</dd>
        </div>
        <div className="flex gap-1" title={METRIC_HELP.intentF1}>
          <dt className="text-slate-700">Intent F1</dt>
          <dd className="font-semibold tabular-nums" data-testid="mean-intent-f1">{formatPercent(means.intentF1)}</dd>
        </div>
        <div className="flex gap-1" title={METRIC_HELP.recallAt1}>
          <dt className="text-slate-700">R@1 text</dt>
          <dd className="font-semibold tabular-nums" data-testid="mean-recall-text">{formatRecall(means.recallAt1.text)}</dd>
        </div>
        <div className="flex gap-1" title={METRIC_HELP.recallAt1}>
          <dt className="text-slate-700">R@1 image</dt>
          <dd className="font-semibold tabular-nums" data-testid="mean-recall-image">{formatRecall(means.recallAt1.image)}</dd>
        </div>
      </dl>
      {compact ? (
        <details className="text-xs">
          <summary className="cursor-pointer rounded text-blue-800 underline focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600">Chart of the running means</summary>
          <RunningMeansChart points={points} />
        </details>
      ) : (
        <RunningMeansChart points={points} />
      )}
      <MetricsHelp />
    </section>
  );
}
