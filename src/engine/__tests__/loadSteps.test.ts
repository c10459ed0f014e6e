import { describe, expect, it } from 'vitest';
import { describeLoadSteps } from '../loadSteps';

describe('the load steps line', () => {
  it('says each step and its parts in seconds, in order', () => {
    expect(
      describeLoadSteps([
        { step: 'CLIP towers', ms: 2510, parts: { 'configs and tokenizer': 900, 'sessions and first run': 1610 } },
        { step: 'BM25 counts', ms: 120 },
      ]),
    ).toBe('CLIP towers 2.51 s (configs and tokenizer 0.90 s, sessions and first run 1.61 s) · BM25 counts 0.12 s');
    expect(describeLoadSteps([])).toBe('');
  });
});
