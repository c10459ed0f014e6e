import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { supercategoryOf } from '../../engine/detection/groundedCaption';
import { formatCount } from '../../engine/datasets/validation';
import { mentionedClasses } from '../../engine/metrics/objectMentions';
import { RESPONSE_METHOD_IDS } from '../../engine/response/methods';
import { namesObject } from '../../engine/response/replyPolicy';
import type { ReplySession, SessionReply } from '../../engine/response/session';
import { integerOption, listOption, parseCommandLine } from '../tools/cliArgs';
import { loadDialogBenchData } from './benchDialog';
import { decodeAnyImageFile } from '../tools/decodeImageFile';
import { ProgressLine } from '../tools/progressLine';

export const REPLIES_USAGE =
  'npm run bench -- replies [--pack mini-clip] [--images ../shared/data/coco-mini/images] [--methods hybrid,depp] [--labels 0] [--json out.json]';

/**
 * npm run bench -- replies [--pack mini-clip] [--images DIR] [--methods hybrid,depp] [--labels N] [--json out.json]
 * What the page's reply rules do for a visitor (session.ts replyPlan), through the page's reply session
 * on the demo pool, each method with the rules and without them (the ranker alone):
 *  (1) photos: each photo of the folder shared alone, as its first turn; of the replies to photos whose
 *      grounded caption is confident, the share whose text names the caption's main object (its COCO
 *      class in any of its words, objectMentions.ts), and the share that names it or an object of the same
 *      COCO supercategory ("near": a cat for a dog). coco-mini is evaluation-only: nothing is chosen on it.
 *  (2) picture requests built from the pool's own image labels ("show me a koala", "send me a photo of
 *      a koala", "can I see a picture of a koala?"): the share whose image carries the label asked for.
 */
const REQUEST_TEMPLATES = ['show me {a} {label}', 'send me a photo of {a} {label}', 'can I see a picture of {a} {label}?'] as const;
const article = (label: string) => (/^[aeiou]/i.test(label) ? 'an' : 'a');

const replyText = (reply: SessionReply) => reply.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : [])).join(' ');

export async function repliesBench(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    {
      pack: { type: 'string', default: 'mini-clip' },
      images: { type: 'string', default: join('..', 'shared', 'data', 'coco-mini', 'images') },
      methods: { type: 'string', default: 'hybrid,depp' },
      labels: { type: 'string', default: '0' },
      json: { type: 'string', default: '' },
    },
    REPLIES_USAGE,
  );
  const methods = listOption(values.methods, 'methods', RESPONSE_METHOD_IDS, REPLIES_USAGE);
  // 0: every distinct label of the pool's images.
  const labelLimit = integerOption(values.labels, 'labels', REPLIES_USAGE, 0);
  const started = performance.now();
  const data = await loadDialogBenchData({ packId: values.pack, dataDir: join('public', 'dialogues'), split: 'test', poolDir: join('public', 'pool') });
  const session: ReplySession = data.newSession();
  const offered = session.methods().available;
  const runs = methods
    .filter((m) => offered.includes(m))
    .flatMap((method) => [
      { method, rules: true },
      { method, rules: false },
    ]);
  console.log(
    `replies · pack ${values.pack} · pool ${formatCount(data.pool.texts.length)} texts, ${formatCount(data.pool.images.length)} images · ${data.encoder.backend.provider} · methods ${runs.map((r) => `${r.method}${r.rules ? '' : ' (ranker alone)'}`).join(', ')}`,
  );
  for (const m of methods.filter((x) => !offered.includes(x))) console.log(`${m}: not offered by pack ${values.pack}`);

  // (1) Photos shared alone.
  const files = readdirSync(values.images)
    .filter((f) => /\.(jpe?g|png|webp)$/i.test(f))
    .sort();
  const photoRows: Record<string, unknown>[] = [];
  const progress = new ProgressLine();
  const photoFigures = runs.map(() => ({ confident: 0, names: 0, near: 0, examples: [] as string[] }));
  for (const [i, file] of files.entries()) {
    const pixels = await decodeAnyImageFile(join(values.images, file));
    let caption: SessionReply['captions'][number] | null = null;
    for (const [r, run] of runs.entries()) {
      // The same image id in every run: the photo is analysed once, and its caption comes with the first reply.
      const reply = await session.compose([{ elements: [{ kind: 'image', imageId: file, decode: async () => pixels }] }], {
        method: run.method,
        rules: run.rules,
      });
      caption ??= reply.captions[0] ?? null;
      const main = caption?.mainObject ?? null;
      const text = replyText(reply);
      if (!main) continue;
      const f = photoFigures[r]!;
      f.confident++;
      const names = namesObject(text, main);
      const near = names || [...mentionedClasses(text)].some((c) => supercategoryOf(c) === supercategoryOf(main));
      if (names) f.names++;
      if (near) f.near++;
      if (f.examples.length < 4 && names) f.examples.push(`${caption!.text} → "${text}"`);
      photoRows.push({ file, method: run.method, rules: run.rules, caption: caption!.text, main, reply: text, names, near });
    }
    progress.update(`photos ${i + 1}/${files.length}`, i + 1, files.length);
  }
  progress.end();
  const confident = photoFigures[0]?.confident ?? 0;
  console.log(`(1) ${files.length} photos of ${values.images} shared alone; ${confident} with a confident caption (a main object):`);
  runs.forEach((run, r) => {
    const f = photoFigures[r]!;
    const pct = (n: number) => `${((100 * n) / Math.max(1, f.confident)).toFixed(1)}%`;
    console.log(
      `  ${`${run.method}${run.rules ? '' : ' (ranker alone)'}`.padEnd(26)} names the main object ${pct(f.names).padStart(6)} (${f.names})   names it or one near it ${pct(f.near).padStart(6)} (${f.near})`,
    );
    for (const e of f.examples) console.log(`      ${e}`);
  });

  // (2) Picture requests from the pool's labels.
  const labels = [...new Set(data.pool.images.map((i) => i.label.trim()).filter((l) => l !== ''))].sort();
  const asked = labelLimit > 0 ? labels.slice(0, labelLimit) : labels;
  const requestFigures = runs.map(() => ({ requests: 0, carries: 0, image: 0 }));
  const line = new ProgressLine();
  for (const [i, label] of asked.entries()) {
    for (const template of REQUEST_TEMPLATES) {
      const request = template.replace('{a}', article(label)).replace('{label}', label);
      for (const [r, run] of runs.entries()) {
        const reply = await session.compose([{ elements: [{ kind: 'text', text: request }] }], { method: run.method, rules: run.rules });
        const f = requestFigures[r]!;
        f.requests++;
        const shown = reply.composed.elements.filter((e) => e.kind === 'image').map((e) => data.pool.images[e.index]!.label.trim());
        if (shown.length > 0) f.image++;
        if (shown[0] === label) f.carries++;
      }
    }
    line.update(`requests ${i + 1}/${asked.length}`, i + 1, asked.length);
  }
  line.end();
  console.log(
    `(2) ${formatCount(asked.length)} labels of the pool's images${labelLimit > 0 ? ` (the first ${labelLimit} of ${labels.length})` : ''}, each asked for ${REQUEST_TEMPLATES.length} ways (${REQUEST_TEMPLATES.map((t) => `"${t}"`).join(', ')}):`,
  );
  runs.forEach((run, r) => {
    const f = requestFigures[r]!;
    console.log(
      `  ${`${run.method}${run.rules ? '' : ' (ranker alone)'}`.padEnd(26)} first image carries the label asked for ${((100 * f.carries) / Math.max(1, f.requests)).toFixed(1).padStart(5)}% (${formatCount(f.carries)} of ${formatCount(f.requests)}); a reply with an image ${((100 * f.image) / Math.max(1, f.requests)).toFixed(1)}%`,
    );
  });
  console.log(`total ${((performance.now() - started) / 1000).toFixed(0)} s`);
  if (values.json)
    writeFileSync(
      values.json,
      `${JSON.stringify({ pack: values.pack, images: values.images, runs, photos: photoFigures.map((f, r) => ({ ...runs[r], ...f })), requests: requestFigures.map((f, r) => ({ ...runs[r], ...f })), photoRows }, null, 1)}\n`,
    );
  await data.release();
}
