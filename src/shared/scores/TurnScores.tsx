import { expectedRank } from '../../engine/metrics/dialogMetrics';
import { recallAt1 } from '../../engine/metrics/sessionMetrics';
import type { ResponseScore } from '../../protocol/protocol';
import { Figure } from './Figure';
import { METRIC_HELP, formatMmRelevance, formatPercent, formatRecall } from './metricText';

const MODALITIES = ['text', 'image'] as const;

/** Where each ranked element of one kind landed, for the tooltip: "rank 12 of 1000", or the miss. */
function rankDetail(score: ResponseScore, modality: 'text' | 'image'): string {
  return score.ranks
    .filter((r) => r.modality === modality)
    .map((r) => (r.rank.miss ? `predicted ${modality === 'text' ? 'an image' : 'a text'} instead (a miss)` : `rank ${expectedRank(r.rank)} of ${r.candidates}`))
    .join('; ');
}

/** The three figures of one scored reply, from the engine's score: MM-Relevance, Intent F1 and R@1 per kind. */
export function TurnScores({ score, label }: { score: ResponseScore; label: string }) {
  const ranked = MODALITIES.filter((m) => score.ranks.some((r) => r.modality === m));
  return (
    <dl aria-label={label} className="flex flex-wrap gap-x-5 gap-y-1 text-sm" data-testid="turn-scores">
      <Figure name="MM-Relevance" value={formatMmRelevance(score.mmRelevance.f1)} unit="/ 100" help={METRIC_HELP.mmRelevance} testId="score-mm-relevance" />
      <Figure name="Intent F1" value={formatPercent(score.intentF1.f1)} help={METRIC_HELP.intentF1} testId="score-intent-f1" />
      <div className="flex gap-1" title={METRIC_HELP.recallAt1}>
        <dt className="text-slate-700">R@1</dt>
        {ranked.length === 0 ? (
          <dd className="text-slate-600" data-testid="score-recall">
            needs a reference dialogue’s negatives
          </dd>
        ) : (
          ranked.map((m) => (
            <dd key={m} className="tabular-nums" data-testid={`score-recall-${m}`} title={rankDetail(score, m)}>
              {m} <span className="font-semibold">{formatRecall(recallAt1(score.ranks, m))}</span>
            </dd>
          ))
        )}
      </div>
    </dl>
  );
}
