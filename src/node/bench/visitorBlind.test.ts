import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESPONSE_METHOD_IDS } from '../../engine/response/types';
import { visitorBench } from './benchVisitor';
import {
  type BlindKey,
  type BlindSheetInput,
  buildBlindSheet,
  formatBlindScores,
  humanCaptionsByFile,
  parseBlindBuilds,
  parseBlindKey,
  renderSheetHtml,
  repliesFileName,
  scoreRatings,
  validateRatings,
} from './visitorBlind';
import type { PlayedTurn } from './visitorPlay';

const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** A folder that looks like a production build. */
function buildFolder(): string {
  const dir = tempDir('blind-build-');
  writeFileSync(join(dir, 'index.html'), '<!doctype html>');
  return dir;
}

describe('the builds of --blind', () => {
  it('takes DIR and DIR#METHOD, each labelled as given', () => {
    const dir = buildFolder();
    expect(parseBlindBuilds([dir, `${dir}#bm25`])).toEqual([
      { label: dir, dir, method: null },
      { label: `${dir}#bm25`, dir, method: 'bm25' },
    ]);
  });

  it('refuses a bad build with one sentence naming it', () => {
    const dir = buildFolder();
    const empty = tempDir('blind-empty-');
    const nowhere = join(empty, 'nothing-here');
    expect(() => parseBlindBuilds([dir, `${dir}#nope`])).toThrow(
      `"nope" in the build "${dir}#nope" is not a response method; choose one of ${RESPONSE_METHOD_IDS.join(', ')}, or leave out #METHOD for the build's own choice.`,
    );
    expect(() => parseBlindBuilds([dir, nowhere])).toThrow(
      `There is no folder "${nowhere}" for the build "${nowhere}"; give the folder npm run build wrote, such as dist or ../before/dist.`,
    );
    expect(() => parseBlindBuilds([dir, `${empty}#bm25`])).toThrow(
      `The build "${empty}#bm25" has no index.html in "${empty}"; run npm run build in that checkout first.`,
    );
    expect(() => parseBlindBuilds([dir])).toThrow(
      `--blind needs at least two builds to compare, and got only "${dir}"; give them after --blind, such as --blind dist dist#bm25.`,
    );
    expect(() => parseBlindBuilds([dir, dir])).toThrow(`The build "${dir}" is given twice; compare different builds or methods, such as dist dist#bm25.`);
  });

  it('is checked by the command before any browser starts', async () => {
    const dir = buildFolder();
    await expect(visitorBench(['--blind', dir, '--seed', '3'])).rejects.toThrow('--blind needs at least two builds to compare');
    await expect(visitorBench(['--blind', dir, `${dir}#nope`])).rejects.toThrow('"nope" in the build');
  });

  it('names each raw replies file after its build, unique among them', () => {
    expect(repliesFileName('dist#bm25')).toBe('replies-dist_bm25.json');
    expect(repliesFileName('../before/dist')).toBe('replies-before_dist.json');
    expect(repliesFileName('../before/dist', new Set(['replies-before_dist.json']))).toBe('replies-before_dist-2.json');
  });
});

describe('human captions', () => {
  it('reads a COCO captions file by image file name, in the file order', () => {
    const coco = {
      images: [
        { id: 1, file_name: '000000000001.jpg' },
        { id: 2, file_name: '000000000002.jpg' },
      ],
      annotations: [
        { image_id: 2, caption: 'A cat on a mat. ' },
        { image_id: 1, caption: 'A dog.' },
        { image_id: 2, caption: 'A sleeping cat.' },
      ],
    };
    expect(humanCaptionsByFile(coco, 'captions.json')).toEqual(
      new Map([
        ['000000000002.jpg', ['A cat on a mat.', 'A sleeping cat.']],
        ['000000000001.jpg', ['A dog.']],
      ]),
    );
    expect(() => humanCaptionsByFile({ images: [] }, 'captions.json')).toThrow('captions.json is not a COCO captions file');
  });
});

// ---------------------------------------------------------------------------------------------

const CAPTIONS = new Map([
  ['000000000139.jpg', ['A living room with a television.', 'A room with chairs and a TV.']],
  ['000000000785.jpg', ['A woman skiing down a slope.']],
]);

interface VisitorLine {
  conversationId: string;
  turn: number;
  text: string;
  photo: string | null;
}

const LINES: VisitorLine[] = [
  { conversationId: 'c1', turn: 1, text: 'Hi there!', photo: null },
  { conversationId: 'c1', turn: 2, text: 'Look at my living room', photo: 'coco-mini/images/000000000139.jpg' },
  { conversationId: 'c1', turn: 3, text: 'Do you like it?', photo: null },
  { conversationId: 'c2', turn: 1, text: 'I went skiing', photo: 'coco-mini/images/000000000785.jpg' },
  { conversationId: 'c2', turn: 2, text: 'And this one?', photo: 'coco-mini/images/999999999999.jpg' },
  { conversationId: 'c2', turn: 3, text: 'Bye!', photo: null },
];

const LABELS = ['../before/dist', 'dist#bm25', 'dist#hybrid'];

/** Build `b`'s reply to line `i`: a text that says whose it is (so the test can follow it through the shuffle), an image on photo turns, and one turn with no reply. */
function played(b: number, lines: readonly VisitorLine[] = LINES): PlayedTurn[] {
  return lines.map((line, i) => {
    const base = { ...line, caption: line.photo ? 'A room.' : null };
    if (b === 1 && i === 5) return { ...base, reply: null, problem: 'No reply this time: BM25 could not rank the pool (dist#bm25). Try again.' };
    const elements: NonNullable<PlayedTurn['reply']>['elements'] = [{ kind: 'text', text: `reply ${b}-${i}` }];
    if (line.photo) elements.push({ kind: 'image', alt: `picture ${b}-${i}`, url: `/pool/media/p${b}${i}.webp`, poolKey: `p${b}${i}` });
    const meta = `${b === 1 ? 'BM25' : 'hybrid (BM25 + conversational encoder)'} · intent trained · CLIP cosine to your turn 0.251 (not MM-Relevance) · 120 ms on WASM`;
    return { ...base, reply: { elements, meta }, problem: null };
  });
}

function input(seed: number, lines: readonly VisitorLine[] = LINES): BlindSheetInput {
  return {
    plays: LABELS.map((label, b) => ({ label, turns: played(b, lines) })),
    captions: CAPTIONS,
    seed,
    turnsFile: 'src/node/data/booth-visitor-turns.json',
    pack: 'mini-clip',
    date: '2026-11-29T00:00:00.000Z',
    repliesFiles: Object.fromEntries(LABELS.map((l) => [l, repliesFileName(l)])),
  };
}

/** Which build's reply a sheet reply is: the "reply B-I" text it starts with (or the no-reply line of build 1). */
function buildOf(shown: readonly string[], turn: number): number {
  const match = /^reply (\d)-(\d)$/.exec(shown[0]!);
  if (match) {
    expect(Number(match[2])).toBe(turn);
    return Number(match[1]);
  }
  expect(shown[0]).toMatch(/^\(no reply: /);
  return 1;
}

/** The build order of every turn: turn id → label per letter. */
const orders = (key: BlindKey) => Object.values(key.turns).map((t) => Object.values(t.letters).join(' | '));

describe('the blind sheet and its key', () => {
  it('shows every build’s reply once per turn, and the key maps each letter back to the build that made it', () => {
    const { sheet, key } = buildBlindSheet(input(1));
    expect(sheet.turns.map((t) => t.id)).toEqual(['t001', 't002', 't003', 't004', 't005', 't006']);
    expect(Object.keys(key.turns)).toEqual(['t001', 't002', 't003', 't004', 't005', 't006']);
    for (const [i, turn] of sheet.turns.entries()) {
      expect(turn.replies.map((r) => r.letter)).toEqual(['A', 'B', 'C']);
      const letters = key.turns[turn.id]!.letters;
      expect(Object.keys(letters)).toEqual(['A', 'B', 'C']);
      // A permutation of the builds...
      expect([...Object.values(letters)].sort()).toEqual([...LABELS].sort());
      // ...and each letter's reply is the one that build played.
      for (const reply of turn.replies) expect(LABELS[buildOf(reply.shown, i)]).toBe(letters[reply.letter]);
    }
    expect(key.builds).toEqual(LABELS);
    expect(key.seed).toBe(1);
    expect(key.turnsFile).toBe('src/node/data/booth-visitor-turns.json');
    expect(key.date).toBe('2026-11-29T00:00:00.000Z');
    expect(Object.values(key.turns).map((t) => t.kind)).toEqual(['text', 'photo', 'text', 'photo', 'photo', 'text']);
    expect(key.replies).toEqual({
      '../before/dist': 'replies-before_dist.json',
      'dist#bm25': 'replies-dist_bm25.json',
      'dist#hybrid': 'replies-dist_hybrid.json',
    });
  });

  it('is the same for the same seed, and orders differ across turns and seeds', () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ conversationId: `c${i}`, turn: 1, text: `line ${i}`, photo: null }));
    const first = buildBlindSheet(input(1, many));
    expect(buildBlindSheet(input(1, many))).toEqual(first);
    const byTurn = orders(first.key);
    expect(new Set(byTurn).size).toBeGreaterThan(1);
    // Every build is A somewhere: the order is not fixed.
    expect(new Set(Object.values(first.key.turns).map((t) => t.letters['A']))).toEqual(new Set(LABELS));
    expect(orders(buildBlindSheet(input(2, many)).key)).not.toEqual(byTurn);
  });

  it('gives the visitor’s earlier lines with their photos, the current line, and what the photo really shows', () => {
    const { sheet } = buildBlindSheet(input(1));
    const [t1, t2, t3, t4, t5] = sheet.turns;
    expect(t1!.earlier).toEqual([]);
    expect(t1!.photo).toBeNull();
    expect(t2!.line).toBe('Look at my living room');
    expect(t2!.photo?.shows).toEqual(['A living room with a television.', 'A room with chairs and a TV.']);
    expect(t3!.earlier).toEqual([
      { text: 'Hi there!', photo: null },
      { text: 'Look at my living room', photo: 'A living room with a television.' },
    ]);
    // A new conversation starts with no earlier lines.
    expect(t4!.earlier).toEqual([]);
    expect(t5!.photo?.shows).toEqual(['no human caption']);
    expect(sheet.turns[5]!.earlier[1]).toEqual({ text: 'And this one?', photo: 'no human caption' });
    // A reply's elements in order; an image as [image: ALT].
    const imageReply = t2!.replies.find((r) => r.shown[0] === 'reply 0-1')!;
    expect(imageReply.shown).toEqual(['reply 0-1', '[image: picture 0-1]']);
  });

  it('says nothing about which build made a reply, in the JSON or the page', () => {
    const { sheet } = buildBlindSheet(input(1));
    const html = renderSheetHtml(sheet);
    for (const text of [JSON.stringify(sheet), html]) {
      for (const label of LABELS) expect(text).not.toContain(label);
      expect(text).not.toMatch(/dist|\.\.\/before|bm25|hybrid|intent trained|CLIP cosine|ms on WASM|mini-clip|booth-visitor-turns/i);
    }
    // The page's no-reply sentence is kept, with the method and the build taken out.
    const noReply = sheet.turns[5]!.replies.find((r) => r.shown[0]!.startsWith('(no reply'))!;
    expect(noReply.shown).toEqual(['(no reply: No reply this time: […] could not rank the pool ([…]). Try again.)']);
  });

  it('renders a plain page with the text first and the photos as thumbnails', () => {
    const withThumbnails: BlindSheetInput = {
      ...input(1),
      photoThumbnail: (photo) => `photos/${photo.split('/').pop()!}`,
      imageThumbnail: (_, image) => (image.poolKey ? `images/${image.poolKey}.webp` : null),
    };
    const html = renderSheetHtml(buildBlindSheet(withThumbnails).sheet);
    expect(html).toContain('<h2>t002</h2>');
    expect(html).toContain('<span class="label">The visitor says:</span> Look at my living room</p>');
    expect(html).toContain('<li>A room with chairs and a TV.</li>');
    expect(html).toContain('<img class="thumb" src="photos/000000000139.jpg" alt="The visitor\'s photo">');
    expect(html).toMatch(/<p>reply 0-1<\/p><p>\[image: picture 0-1\]<\/p><img class="thumb" src="images\/p01\.webp" alt="">/);
    expect(html).toContain(
      '<li>Hi there!</li><li>Look at my living room <span class="photo-note">(shared a photo: A living room with a television.)</span></li>',
    );
    expect(renderSheetHtml({ ...buildBlindSheet(input(1)).sheet, turns: [] })).not.toContain('<script');
  });

  it('refuses builds that did not play the same turns', () => {
    const other = { ...input(1) };
    other.plays = [other.plays[0]!, { label: 'dist', turns: played(1, LINES.slice(0, 5)) }];
    expect(() => buildBlindSheet(other)).toThrow('"dist" played 5 turns and "../before/dist" 6; play every build from one turns file.');
    const changed = played(1).map((t, i) => (i === 2 ? { ...t, text: 'Something else' } : t));
    other.plays = [other.plays[0]!, { label: 'dist', turns: changed }];
    expect(() => buildBlindSheet(other)).toThrow('Turn 3 of "dist" (c1 turn 3) is not the one "../before/dist" played; play every build from one turns file.');
  });
});

// ---------------------------------------------------------------------------------------------

/** Two builds, two text turns and two photo turns, the letters crossed. */
const KEY: BlindKey = parseBlindKey(
  {
    about: 'test',
    builds: ['old', 'new'],
    turnsFile: 'turns.json',
    pack: 'mini-clip',
    seed: 1,
    date: '2026-11-29',
    replies: {},
    turns: {
      t001: { kind: 'text', conversationId: 'c1', turn: 1, letters: { A: 'old', B: 'new' } },
      t002: { kind: 'text', conversationId: 'c1', turn: 2, letters: { A: 'new', B: 'old' } },
      t003: { kind: 'photo', conversationId: 'c2', turn: 1, letters: { A: 'old', B: 'new' } },
      t004: { kind: 'photo', conversationId: 'c2', turn: 2, letters: { A: 'new', B: 'old' } },
    },
  },
  'key.json',
);

const RATINGS = {
  ratings: {
    t001: { A: { relevance: 4, naturalness: 5 }, B: { relevance: 2, naturalness: 3, flags: ['unrelated'] } },
    t002: { A: { relevance: 5, naturalness: 4, flags: ['asks_for_photo'] }, B: { relevance: 3, naturalness: 3 } },
    t003: { A: { relevance: 1, naturalness: 2, flags: ['unrelated', 'asks_for_photo'] }, B: { relevance: 4, naturalness: 4 } },
    t004: { A: { relevance: 3, naturalness: 5, flags: ['asks_for_photo'] }, B: { relevance: 3, naturalness: 1, flags: [] } },
  },
};

/** RATINGS with some entries changed or removed (undefined). */
function ratingsWith(change: (r: Record<string, Record<string, unknown>>) => void): unknown {
  const copy = structuredClone(RATINGS.ratings) as Record<string, Record<string, unknown>>;
  change(copy);
  return { ratings: copy };
}

describe('--score', () => {
  it('gives each build’s exact means over all, text and photo turns, its flag shares, and the relevance differences', () => {
    const scores = scoreRatings(validateRatings(RATINGS, KEY, 'ratings.json'), KEY);
    expect(scores.turns).toEqual({ all: 4, text: 2, photo: 2 });
    // old: relevance 4, 3 | 1, 3; naturalness 5, 3 | 2, 1.  new: relevance 2, 5 | 4, 3; naturalness 3, 4 | 4, 5.
    expect(scores.builds).toEqual([
      {
        build: 'old',
        relevance: { all: { mean: 2.75, n: 4 }, text: { mean: 3.5, n: 2 }, photo: { mean: 2, n: 2 } },
        naturalness: { all: { mean: 2.75, n: 4 }, text: { mean: 4, n: 2 }, photo: { mean: 1.5, n: 2 } },
        flagged: { unrelated: 0.25, asks_for_photo: 0.25 },
      },
      {
        build: 'new',
        relevance: { all: { mean: 3.5, n: 4 }, text: { mean: 3.5, n: 2 }, photo: { mean: 3.5, n: 2 } },
        naturalness: { all: { mean: 4, n: 4 }, text: { mean: 3.5, n: 2 }, photo: { mean: 4.5, n: 2 } },
        flagged: { unrelated: 0.25, asks_for_photo: 0.5 },
      },
    ]);
    expect(scores.relevanceDifferences).toEqual([
      { build: 'old', other: 'new', difference: -0.75, better: 1, worse: 2, same: 1 },
      { build: 'new', other: 'old', difference: 0.75, better: 2, worse: 1, same: 1 },
    ]);
    const printed = formatBlindScores(scores);
    expect(printed).toMatch(/^old +2\.75 +3\.50 +2\.00 +2\.75 +4\.00 +1\.50 +25\.0% +25\.0%$/m);
    expect(printed).toMatch(/^new +3\.50 +3\.50 +3\.50 +4\.00 +3\.50 +4\.50 +25\.0% +50\.0%$/m);
    expect(printed).toContain('  new against old: +0.75 (more relevant on 2 turns, less on 1 turn, the same on 1 turn)');
    expect(printed).toContain('relevance: all (n=4)');
    expect(printed).toContain('photo (n=2)');
  });

  it('refuses a ratings file that does not match its key with one sentence naming what is wrong', () => {
    const refused = (json: unknown) => () => validateRatings(json, KEY, 'ratings.json');
    expect(
      refused(
        ratingsWith((r) => {
          delete r['t002']!['B'];
          delete r['t004'];
        }),
      ),
    ).toThrow(/^ratings\.json has no rating for t002 \(B\) and t004; rate every reply of the sheet\.$/);
    expect(refused({ ratings: {} })).toThrow('ratings.json has no rating for t001, t002, t003 and 1 more (4 in all); rate every reply of the sheet.');
    expect(refused(ratingsWith((r) => (r['t005'] = { A: { relevance: 3, naturalness: 3 } })))).toThrow(
      'ratings.json rates t005, which is not in the key; score the ratings with the key.json of the sheet that was rated.',
    );
    expect(refused(ratingsWith((r) => (r['t001']!['C'] = { relevance: 3, naturalness: 3 })))).toThrow(
      'ratings.json rates letters the sheet does not show, t001 (C); rate only the replies each turn shows.',
    );
    expect(
      refused(
        ratingsWith((r) => {
          r['t001']!['A'] = { relevance: 6, naturalness: 5 };
          r['t002']!['A'] = { relevance: '4', naturalness: 4 };
          r['t003']!['B'] = { relevance: 4, naturalness: 3.5 };
          r['t004']!['B'] = { naturalness: 0 };
        }),
      ),
    ).toThrow(
      'ratings.json has scores that are not whole numbers from 1 to 5, t001 (A) relevance 6, t002 (A) relevance "4", t003 (B) naturalness 3.5 and 2 more (5 in all); give relevance and naturalness as 1, 2, 3, 4 or 5.',
    );
    expect(refused(ratingsWith((r) => (r['t002']!['B'] = { relevance: 3, naturalness: 3, flags: ['offensive'] })))).toThrow(
      'ratings.json has flags it cannot read, t002 (B) "offensive"; flags is a list of unrelated and asks_for_photo.',
    );
    expect(refused({ t001: {} })).toThrow('ratings.json has no "ratings" object;');
  });

  it('scores nothing from a refused file: the command fails and writes no figures', async () => {
    const dir = tempDir('blind-score-');
    writeFileSync(join(dir, 'key.json'), JSON.stringify(KEY));
    const broken = join(dir, 'ratings.json');
    writeFileSync(broken, JSON.stringify(ratingsWith((r) => delete r['t003'])));
    const figures = join(dir, 'scores.json');
    await expect(visitorBench(['--score', broken, '--json', figures])).rejects.toThrow(`${broken} has no rating for t003; rate every reply of the sheet.`);
    expect(existsSync(figures)).toBe(false);

    writeFileSync(join(dir, 'good.json'), JSON.stringify(RATINGS));
    await visitorBench(['--score', join(dir, 'good.json'), '--json', figures]);
    expect(existsSync(figures)).toBe(true);
  });

  it('refuses a key that is not one', () => {
    const notKey = structuredClone(KEY) as unknown as { turns: Record<string, { letters: Record<string, string> }> };
    notKey.turns['t002']!.letters = { A: 'old', B: 'old' };
    expect(() => parseBlindKey(notKey, 'key.json')).toThrow(
      'key.json is not a key written by bench -- visitor --blind (the letters of turn t002 do not name each build once); give --key the key.json written with the sheet that was rated.',
    );
    expect(() => parseBlindKey({ builds: ['a'] }, 'key.json')).toThrow('(it has no list of builds)');
  });
});
