import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { parseCommandLine } from '../tools/cliArgs';
import { loadDialogBenchData } from './benchDialog';
import { ProgressLine } from '../tools/progressLine';

export const LOCAL_HEADS_USAGE =
  'npm run bench -- local-heads [--pack mini-clip] [--json out.json]   (clip-map and the intent head trained as the worker trains them, on the demo train split, figures on valid)';

/**
 * Trains clip-map and the intent head with the worker's own code (ReplySession.learnLocalHeads, one
 * WASM thread as in the page) on the demo train split, and prints the time of each part and the
 * valid figures next to those of the pack's Python-trained heads (heads/heads.json), measured on the
 * same protocols: per-step intent accuracy over every valid response, and clip-map R@1 of each valid
 * reference among its record's first 99 negatives (the heads' figure uses every valid reference,
 * the worker a seeded 400 per modality).
 */
export async function localHeadsBench(args: string[]): Promise<void> {
  const values = parseCommandLine(args, { pack: { type: 'string', default: 'mini-clip' }, json: { type: 'string', default: '' } }, LOCAL_HEADS_USAGE);
  const data = await loadDialogBenchData({ packId: values.pack, dataDir: join('public', 'dialogues'), split: 'valid', poolDir: join('public', 'pool') });
  const progress = new ProgressLine();
  try {
    const session = data.newSession();
    const local = await session.learnLocalHeads(data.records, {
      yieldControl: async () => undefined,
      onProgress: (phase, done, total) => progress.update(`${phase} ${done}/${total}`, done, total, phase),
    });
    progress.end();
    const f = local.figures;
    let python: { intent?: number; text?: number; image?: number } = {};
    try {
      const heads = JSON.parse(readFileSync(join('models', values.pack, 'heads', 'heads.json'), 'utf8')) as {
        valid: { intent: { intent_acc: number } };
        clipMap: { text: { validR1: number }; image: { validR1: number } };
      };
      python = { intent: heads.valid.intent.intent_acc, text: heads.clipMap.text.validR1, image: heads.clipMap.image.validR1 };
    } catch {
      // a pack without Python heads: their column stays empty
    }
    const pct = (x: number) => (100 * x).toFixed(1);
    const col = (x: number | undefined) => (x === undefined ? '—' : x.toFixed(1));
    console.log(
      `pack ${values.pack} · backend ${data.encoder.backend.provider} (${data.encoder.backend.dtypes.text_model}) · train ${f.intent.trainSteps} intent steps · valid ${data.records.length} dialogues · load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(`${'part'.padEnd(22)} ${'in the worker'.padStart(14)} ${'Python heads'.padStart(13)} ${'zero-shot'.padStart(10)} ${'time'.padStart(8)}`);
    console.log(
      `${'intent accuracy'.padEnd(22)} ${pct(f.intent.validAccuracy).padStart(14)} ${col(python.intent).padStart(13)} ${pct(f.intent.majorityAccuracy).padStart(10)} ${`${(f.intent.ms / 1000).toFixed(1)} s`.padStart(8)}   (zero-shot: the majority intent; macro F1 ${pct(f.intent.validMacroF1)}, best epoch ${f.intent.bestEpoch})`,
    );
    for (const m of ['text', 'image'] as const) {
      const c = f.clipMap[m];
      console.log(
        `${`clip-map ${m} R@1/100`.padEnd(22)} ${pct(c.validR1).padStart(14)} ${col(python[m]).padStart(13)} ${pct(c.zeroShotR1).padStart(10)} ${`${(c.ms / 1000).toFixed(1)} s`.padStart(8)}   (zero-shot: clip-sim; ${c.trainPairs} train pairs, ${c.validQueries} valid references, best epoch ${c.bestEpoch})`,
      );
    }
    console.log(
      `encoding dialogue texts not in the pool: ${(f.encodeMs / 1000).toFixed(1)} s · total ${(f.totalMs / 1000).toFixed(1)} s (target: at most 120 s)`,
    );
    if (values.json) writeFileSync(values.json, JSON.stringify({ pack: values.pack, figures: f, python }, null, 2));
  } finally {
    progress.end();
    await data.release();
  }
}
