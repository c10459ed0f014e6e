import { describe, expect, it } from 'vitest';
import { addAnswer, emptyAccuracy, type ClevrAccuracy } from '../../engine/clevr/clevrEvaluation';
import type { QuestionLabel } from '../../engine/clevr/templates';
import { paperOrdering } from './benchClevr';

/** A model's answers: per template, how many of n questions (at that coreference distance) it got right. */
function scored(rows: [QuestionLabel, number | null, number, number][]): ClevrAccuracy {
  const a = emptyAccuracy();
  for (const [template, corefDistance, right, n] of rows) for (let i = 0; i < n; i++) addAnswer(a, { template, corefDistance, correct: i < right });
  return a;
}

describe("bench -- clevr: the paper's ordering checked on the measured figures", () => {
  it('says for each target whether it holds, with the figures', () => {
    const results = {
      'lf-qi': scored([
        ['seek-attr-imm', 1, 5, 10],
        ['exist-attribute', null, 9, 10],
        ['count-all', null, 4, 10],
      ]),
      'hre-qih': scored([
        ['seek-attr-imm', 1, 8, 10],
        ['exist-attribute', null, 9, 10],
        ['count-all', null, 9, 10],
        ['seek-attr-early', 5, 3, 10],
      ]),
      'coref-qih': scored([
        ['seek-attr-imm', 1, 6, 10],
        ['exist-attribute', null, 9, 10],
        ['count-all', null, 5, 10],
        ['seek-attr-early', 5, 7, 10],
      ]),
    };
    expect(paperOrdering(results)).toEqual([
      'hre-qih above LF-QI on coreference questions: 55.0 against 50.0',
      'coref-qih above LF-QI on coreference questions: 65.0 against 50.0',
      'lf-qi: exist 90.0 above count 40.0 and seek 50.0',
      'hre-qih: exist 90.0 NOT above count 90.0 and seek 55.0',
      'coref-qih: exist 90.0 above count 50.0 and seek 65.0',
      'coref-qih at distance 4+: 70.0, ahead of the best other model (hre-qih 30.0)',
    ]);
  });
});
