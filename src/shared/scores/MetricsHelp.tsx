import { METRIC_HELP } from './metricText';

/** "What is this?": one line on each metric, open on demand, reachable by keyboard. */
export function MetricsHelp({ summary = 'What do these numbers mean?' }: { summary?: string }) {
  return (
    <details className="text-xs text-slate-700">
      <summary className="cursor-pointer rounded text-blue-800 underline focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600">
        {summary}
      </summary>
      <ul className="mt-1 flex list-disc flex-col gap-1 pl-5">
        <li>{METRIC_HELP.mmRelevance}</li>
        <li>{METRIC_HELP.intentF1}</li>
        <li>{METRIC_HELP.recallAt1}</li>
      </ul>
    </details>
  );
}
