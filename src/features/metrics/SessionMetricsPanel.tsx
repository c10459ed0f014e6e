import { useMemo } from 'react';
import { runningMeans } from '../../engine/metrics/sessionMetrics';
import { sessionMetricsActions, useSessionMetricsStore } from './sessionMetricsStore';
import { Figure } from '../../shared/scores/Figure';
import { MetricsHelp } from '../../shared/scores/MetricsHelp';
import { RunningMeansChart } from './RunningMeansChart';
import { METRIC_HELP, formatMmRelevance, formatPercent, formatRecall } from '../../shared/scores/metricText';

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
        <button
          type="button"
          onClick={() => sessionMetricsActions.reset()}
          className="rounded-lg border border-slate-300 px-2 py-1 text-xs hover:bg-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600"
        >
          Reset means
        </button>
      </div>
      <dl className="flex flex-wrap gap-x-6 gap-y-1 text-sm">
        <Figure name="MM-Relevance" value={formatMmRelevance(means.mmRelevance)} unit="/ 100" help={METRIC_HELP.mmRelevance} testId="mean-mm-relevance" />
        <Figure name="Intent F1" value={formatPercent(means.intentF1)} help={METRIC_HELP.intentF1} testId="mean-intent-f1" />
        <Figure name="R@1 text" value={formatRecall(means.recallAt1.text)} help={METRIC_HELP.recallAt1} testId="mean-recall-text" />
        <Figure name="R@1 image" value={formatRecall(means.recallAt1.image)} help={METRIC_HELP.recallAt1} testId="mean-recall-image" />
      </dl>
      {compact ? (
        <details className="text-xs">
          <summary className="cursor-pointer rounded text-blue-800 underline focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600">
            Chart of the running means
          </summary>
          <RunningMeansChart points={points} />
        </details>
      ) : (
        <RunningMeansChart points={points} />
      )}
      <MetricsHelp />
    </section>
  );
}
