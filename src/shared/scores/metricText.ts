import { type SessionMeans, recallAt1 } from '../../engine/metrics/sessionMetrics';
import type { ResponseScore } from '../../protocol/protocol';

/** One line per metric, for the "what is this?" notes and tooltips. */
export const METRIC_HELP = {
  mmRelevance:
    'MM-Relevance (MMDialog eqs. 2–3): the reply’s and the reference’s elements are paired in order, each pair scores 100 × the cosine of their CLIP embeddings, and the F1 of the two averages (over the reply’s and the reference’s length) is the score, from 0 to 100.',
  intentF1:
    'Intent F1 (eq. 1): whether the reply uses text and images in the same order as the reference, paired in order; 100% when every position has the same kind.',
  recallAt1:
    'R@1: the share of the reference’s elements the engine ranks first among themselves and the dialogue’s 999 negatives of the same kind; 0% when it predicted the other kind (text for an image).',
} as const;

export const formatMmRelevance = (x: number) => x.toFixed(1);
export const formatPercent = (x: number) => `${x.toFixed(1)}%`;
/** Recall is a fraction in the engine; shown in percent. */
export const formatRecall = (x: number | null) => (x === null ? '—' : formatPercent(100 * x));

/** The running means in one sentence, for screen readers and the chart's label. */
export function describeMeans(m: SessionMeans): string {
  return `over ${m.turns} scored turn${m.turns === 1 ? '' : 's'}: MM-Relevance ${formatMmRelevance(m.mmRelevance)}, Intent F1 ${formatPercent(m.intentF1)}, R@1 text ${formatRecall(m.recallAt1.text)}, R@1 image ${formatRecall(m.recallAt1.image)}`;
}

/** One scored turn in a sentence, for the live region that announces new scores. */
export function describeScore(score: ResponseScore): string {
  const ranked = (['text', 'image'] as const).filter((m) => score.ranks.some((r) => r.modality === m));
  const recall =
    ranked.length === 0
      ? 'no R@1 without a reference dialogue’s negatives'
      : `R@1 ${ranked.map((m) => `${m} ${formatRecall(recallAt1(score.ranks, m))}`).join(', ')}`;
  return `MM-Relevance ${formatMmRelevance(score.mmRelevance.f1)} of 100, Intent F1 ${formatPercent(score.intentF1.f1)}, ${recall}.`;
}
