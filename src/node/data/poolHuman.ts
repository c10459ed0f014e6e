import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BOOTH_FILTER_REASONS, type BoothFilterReason, boothFilterReason } from '../../engine/conversations/boothFilter';
import { CONVERSATION_CORPORA, CONVERSATION_CORPUS_IDS, type ConversationCorpusId } from '../../engine/conversations/corpora';
import { parseConversationsBytes } from '../../engine/datasets/mmdialog';
import { formatCount } from '../../engine/datasets/validation';
import { textKey } from '../../engine/pool/textKey';
import { integerOption, parseCommandLine, runCommand } from '../tools/cliArgs';
import { readPoolExclusions } from './poolExclusions';
import { SHARED_DATA_DIR, readCorpora } from './conversationFiles';
import { ABOUT_THE_DEMO_TOPIC, aboutTheDemoLines } from '../../engine/response/aboutTheDemo';
import { PICTURE_INTRO_LINES, PICTURE_INTRO_TOPIC } from '../../engine/response/replyPolicy';

/**
 * npm run pool:human -- [--data ../shared/data] [--pool public/pool] [--max-chars 280]
 * Writes the demo's own lines (what it says about itself, aboutTheDemo.ts, and the lines that introduce
 * a requested picture, replyPolicy.ts), then adds the utterances of the train parts of the real conversation corpora (splitCorpus: never
 * valid, never test) to the pool's texts.json, each with its source, whose credit and licence go in
 * texts.json's "sources" (shown in Credits). Run after `npm run pool:dialogues`, which rewrites
 * texts.json; rows of these sources from an earlier run are replaced.
 *
 * A text is left out, and counted, when a booth must not show it (boothFilter: the screen's categories,
 * URLs, e-mail addresses), when a person put its key on the reviewed exclusion list
 * (src/node/data/pool-exclusions.json), when the tokenizer cannot read it, when it is longer than a chat line
 * (--max-chars), when its text key (textKey) is already in the pool (a written text, an earlier
 * utterance), and when its key is a response of the demo's valid or test dialogues, which must never
 * be in the pool in any re-typing (src/engine/__tests__/demoDataset.test.ts).
 */
const USAGE = 'npm run pool:human -- [--data ../shared/data] [--pool public/pool] [--max-chars 280] [--exclusions src/node/data/pool-exclusions.json]';
/** Examples printed per reason a text was left out, so a person can see what each list drops. */
const EXAMPLES_SHOWN = 3;

interface TextRow {
  id: string;
  text: string;
  topic?: string;
  source?: string;
  borderline?: string;
}

function main(): void {
  const values = parseCommandLine(
    process.argv.slice(2),
    {
      data: { type: 'string', default: SHARED_DATA_DIR },
      pool: { type: 'string', default: join('public', 'pool') },
      'max-chars': { type: 'string', default: '280' },
      exclusions: { type: 'string', default: join('src', 'node', 'data', 'pool-exclusions.json') },
    },
    USAGE,
  );
  const maxChars = integerOption(values['max-chars'], 'max-chars', USAGE);
  const reviewed = readPoolExclusions(values.exclusions);
  const textsPath = join(values.pool, 'texts.json');
  const catalogue = JSON.parse(readFileSync(textsPath, 'utf8')) as { version: number; texts: TextRow[]; sources?: unknown };
  const corpusIds = new Set<string>(CONVERSATION_CORPUS_IDS);
  // The demo's own lines (about itself, introducing a picture) are written anew from the engine's lists.
  const ownTopics = new Set([ABOUT_THE_DEMO_TOPIC, PICTURE_INTRO_TOPIC]);
  const written: TextRow[] = [
    ...aboutTheDemoLines().map((text, i) => ({ id: `about-${i + 1}`, text, topic: ABOUT_THE_DEMO_TOPIC, source: 'written' })),
    ...PICTURE_INTRO_LINES.map((text, i) => ({ id: `intro-${i + 1}`, text, topic: PICTURE_INTRO_TOPIC, source: 'written' })),
  ];
  // A line whose text key the pool holds already is not added: the session finds the demo's lines by key
  // (the demo's dialogues draw their negatives from the pool's exact texts, so none is replaced).
  const others = catalogue.texts.filter((t) => !corpusIds.has(t.source ?? '') && !ownTopics.has(t.topic ?? ''));
  const otherKeys = new Set(others.map((t) => textKey(t.text)));
  const kept = [...others, ...written.filter((t) => !otherKeys.has(textKey(t.text)))];
  const keys = new Set(kept.map((t) => textKey(t.text)));
  // The demo's held-out responses: never in the pool, in any re-typing.
  const heldOut = new Set<string>();
  for (const split of ['valid', 'test']) {
    const file = join(values.pool, '..', 'dialogues', split, 'conversations.json');
    for (const record of parseConversationsBytes(new Uint8Array(readFileSync(file)), { file })) {
      for (const turn of record.turns) for (const e of turn.elements) if (e.kind === 'text') heldOut.add(textKey(e.text));
    }
  }
  const added: TextRow[] = [];
  const report: Record<
    ConversationCorpusId,
    { utterances: number; added: number; duplicate: number; demoHeldOut: number; tooLong: number; reviewed: number } & Record<BoothFilterReason, number>
  > = Object.fromEntries(
    CONVERSATION_CORPUS_IDS.map((id) => [
      id,
      { utterances: 0, added: 0, duplicate: 0, demoHeldOut: 0, tooLong: 0, reviewed: 0, ...Object.fromEntries(BOOTH_FILTER_REASONS.map((r) => [r, 0])) },
    ]),
  ) as never;
  const skipped: string[] = [];
  const examples: Partial<Record<BoothFilterReason, string[]>> = {};
  const corpora = readCorpora(values.data);
  // Short ids keep texts.json small (it is part of the offline install): "dd-1234" for DailyDialog's line
  // 1234, "tc-a2b769a0" for a Topical-Chat conversation (its id's first eight hex digits, whole if they clash).
  const shortIds = new Map<string, string>();
  const taken = new Set<string>();
  for (const { corpus, conversations } of corpora) {
    for (const c of conversations) {
      const short = corpus === 'dailydialog' ? `dd-${c.id.replace(/^line-/, '')}` : `tc-${c.id.replace(/^t_/, '').slice(0, 8)}`;
      const id = taken.has(short) ? `${corpus === 'dailydialog' ? 'dd' : 'tc'}-${c.id}` : short;
      taken.add(id);
      shortIds.set(`${corpus}/${c.id}`, id);
    }
  }
  for (const { corpus, conversations, skipped: read } of corpora) {
    const r = report[corpus];
    if (read.emptyTurns || read.oneTurn)
      skipped.push(`${corpus}: ${read.emptyTurns} empty utterances and ${read.oneTurn} one-turn conversations skipped while reading`);
    for (const conversation of conversations) {
      if (conversation.part !== 'train') continue;
      conversation.tidyTurns.forEach((text, turn) => {
        r.utterances++;
        const reason = boothFilterReason(text);
        if (reason) {
          const shown = (examples[reason] ??= []);
          if (shown.length < EXAMPLES_SHOWN) shown.push(text);
          return void r[reason]++;
        }
        if (text.length > maxChars) return void r.tooLong++;
        const key = textKey(text);
        if (reviewed.has(key)) return void r.reviewed++;
        if (heldOut.has(key)) return void r.demoHeldOut++;
        if (keys.has(key)) return void r.duplicate++;
        keys.add(key);
        r.added++;
        added.push({ id: `${shortIds.get(`${corpus}/${conversation.id}`)}-${turn + 1}`, text, source: corpus });
      });
    }
  }
  const sources = Object.fromEntries(
    CONVERSATION_CORPUS_IDS.map((id) => {
      const c = CONVERSATION_CORPORA[id];
      return [id, { name: c.name, credit: c.credit, licence: c.licence, url: c.url }];
    }),
  );
  // Booth strictness (kiosk mode) leaves out the borderline texts too: marked here, so the page does not screen 64k texts itself (about 4 s).
  const borderline: Partial<Record<BoothFilterReason, number>> = {};
  const rows = [...kept, ...added].map(({ borderline: _earlier, ...t }) => {
    const reason = boothFilterReason(t.text, { strict: true });
    if (!reason) return t;
    borderline[reason] = (borderline[reason] ?? 0) + 1;
    return { ...t, borderline: reason };
  });
  // One text a line, as pool:dialogues writes it, so a diff shows which texts changed.
  const lines = rows.map((t) => JSON.stringify(t));
  const out = `{"version": 1, "sources": ${JSON.stringify(sources)}, "texts": [\n${lines.join(',\n')}\n]}\n`;
  writeFileSync(`${textsPath}.tmp`, out);
  renameSync(`${textsPath}.tmp`, textsPath);
  for (const [corpus, r] of Object.entries(report)) {
    const dropped = BOOTH_FILTER_REASONS.map((reason) => `${r[reason]} ${reason}`).join(', ');
    console.log(
      `${corpus}: ${formatCount(r.utterances)} train utterances → ${formatCount(r.added)} added; left out: ${dropped}, ${r.reviewed} on the reviewed exclusion list, ${r.tooLong} longer than ${maxChars} characters, ${formatCount(r.duplicate)} already in the pool (by text key), ${r.demoHeldOut} held out for the demo's valid and test dialogues`,
    );
  }
  for (const line of skipped) console.log(line);
  for (const reason of BOOTH_FILTER_REASONS) {
    const total = CONVERSATION_CORPUS_IDS.reduce((n, id) => n + report[id][reason], 0);
    console.log(`${reason}: ${formatCount(total)} left out${total ? `, e.g. ${(examples[reason] ?? []).map((t) => JSON.stringify(t)).join('; ')}` : ''}`);
  }
  console.log(
    `borderline, left out under booth strictness: ${Object.entries(borderline)
      .map(([reason, n]) => `${formatCount(n)} ${reason}`)
      .join(', ')}`,
  );
  console.log(
    `${textsPath}: ${formatCount(kept.length)} texts kept + ${formatCount(added.length)} human texts = ${formatCount(kept.length + added.length)} (${(out.length / 1e6).toFixed(1)} MB)`,
  );
}

await runCommand('pool:human', main);
