import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalHeads } from '../../engine/response/localHeads';
import { type DialogBenchData, loadDialogBenchData } from './benchDialog';

/**
 * The worker's training of clip-map and the intent head (ReplySession.learnLocalHeads) on a pack
 * without Python heads: the tests' tiny CLIP over the demo pool, trained on the demo train split and
 * early-stopped on valid, then replying with what it trained.
 */
describe('clip-map and the intent head trained in the worker', () => {
  let data: DialogBenchData;
  let local: LocalHeads;
  const phases = new Set<string>();
  let yields = 0;
  beforeAll(async () => {
    data = await loadDialogBenchData({ packId: 'test-tiny-clip', dataDir: join('public', 'dialogues'), split: 'valid', poolDir: join('public', 'pool') });
    local = await data.newSession().learnLocalHeads(data.records, { yieldControl: async () => void yields++, onProgress: (phase) => phases.add(phase) });
  }, 600_000);
  afterAll(() => data?.release());

  it('reports each part and hands control back while it trains', () => {
    expect([...phases]).toEqual(['Encoding dialogue texts', 'Training the intent head', 'Training clip-map (text)', 'Training clip-map (image)']);
    expect(yields).toBeGreaterThan(100);
    expect(local.clipMap.dim).toBe(16);
    // Every valid response step is scored, and the train split gives the samples.
    expect(local.figures.intent.trainSteps).toBeGreaterThan(30_000);
    expect(local.figures.intent.validSteps).toBeGreaterThan(1_000);
    // A map that did not beat epoch 0 on valid is epoch 0 itself: clip-sim.
    for (const m of ['text', 'image'] as const) expect(local.figures.clipMap[m].validR1).toBeGreaterThanOrEqual(local.figures.clipMap[m].zeroShotR1);
  });

  it('is deterministic', async () => {
    const again = await data.newSession().learnLocalHeads(data.records, { yieldControl: async () => undefined });
    expect(Array.from(again.intent.params.weights)).toEqual(Array.from(local.intent.params.weights));
    expect(Array.from(again.clipMap.text.w)).toEqual(Array.from(local.clipMap.text.w));
    expect(again.figures.clipMap.image.validR1).toBe(local.figures.clipMap.image.validR1);
  });

  it('turns a zero-shot session into one with clip-map and a trained intent head', async () => {
    const session = data.newSession();
    expect(session.methods()).toEqual({ available: ['random', 'tfidf', 'bm25', 'clip-sim'], preferred: 'clip-sim' });
    session.setLocalHeads(local);
    expect(session.methods()).toEqual({ available: ['random', 'tfidf', 'bm25', 'clip-sim', 'clip-map'], preferred: 'clip-map' });
    const record = data.records[0]!;
    const { reply } = await session.replayTurn(record, 1);
    expect(reply.method).toBe('clip-map');
    expect(reply.intentModel).toBe('head');
    expect(reply.elements.length).toBeGreaterThan(0);
  });
});
