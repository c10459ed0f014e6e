import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { seededRandom } from '../../engine/random';
import { methodName } from '../../engine/response/methods';
import { RESPONSE_METHOD_IDS, type ResponseMethodId } from '../../engine/response/types';
import { shuffleWith } from '../../engine/selection/protocols';
import type { PlayedTurn } from './visitorPlay';

/**
 * The blind rating of `npm run bench -- visitor --blind` and `--score`, without the browser: the
 * builds named on the command line, the sheet a rater sees (every visitor turn with the replies of
 * all builds, unlabelled and shuffled per turn) and the key that says which build made which reply,
 * and the ratings checked against that key and scored per build. docs/visitor-benchmark.md has the
 * workflow; the rater sees only the sheet and docs/visitor-rubric.md.
 */

/** One build to play: a production build folder, and maybe the response method it is told to use. */
export interface BlindBuild {
  /** The BUILD as given on the command line (`dist#bm25`): the key's name for it. */
  label: string;
  dir: string;
  /** Null: the build's own choice (its pack's preferred method). */
  method: ResponseMethodId | null;
}

/** A reply letter per build: A, B, C... */
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** `DIR` or `DIR#METHOD`, checked: the folder holds a production build and the method is one the engine has. */
function parseBlindBuild(spec: string): BlindBuild {
  const hash = spec.lastIndexOf('#');
  const dir = hash < 0 ? spec : spec.slice(0, hash);
  const method = hash < 0 ? null : spec.slice(hash + 1);
  if (dir === '') throw new Error(`The build "${spec}" names no folder; give a production build folder, such as dist or dist#bm25.`);
  if (method !== null && !(RESPONSE_METHOD_IDS as readonly string[]).includes(method))
    throw new Error(
      `"${method}" in the build "${spec}" is not a response method; choose one of ${RESPONSE_METHOD_IDS.join(', ')}, or leave out #METHOD for the build's own choice.`,
    );
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new Error(`There is no folder "${dir}" for the build "${spec}"; give the folder npm run build wrote, such as dist or ../before/dist.`);
  if (!existsSync(join(dir, 'index.html'))) throw new Error(`The build "${spec}" has no index.html in "${dir}"; run npm run build in that checkout first.`);
  return { label: spec, dir, method: method as ResponseMethodId | null };
}

/** The builds of `--blind`: two or more, each checked, none given twice (the key names them by what was given). */
export function parseBlindBuilds(specs: readonly string[]): BlindBuild[] {
  if (specs.length < 2)
    throw new Error(
      `--blind needs at least two builds to compare, and got ${specs.length === 0 ? 'none' : `only "${specs[0]}"`}; give them after --blind, such as --blind dist dist#bm25.`,
    );
  if (specs.length > LETTERS.length) throw new Error(`--blind got ${specs.length} builds; a sheet labels at most ${LETTERS.length}, A to Z.`);
  const twice = specs.find((s, i) => specs.indexOf(s) !== i);
  if (twice !== undefined) throw new Error(`The build "${twice}" is given twice; compare different builds or methods, such as dist dist#bm25.`);
  return specs.map(parseBlindBuild);
}

/** A name for a build's raw replies file (`replies-dist_bm25.json`), unique among the builds. */
export function repliesFileName(label: string, taken: ReadonlySet<string> = new Set()): string {
  const stem = label.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+|[._]+$/g, '') || 'build';
  let name = `replies-${stem}.json`;
  for (let n = 2; taken.has(name); n++) name = `replies-${stem}-${n}.json`;
  return name;
}

// ---------------------------------------------------------------------------------------------
// What the visitor's photos really show: COCO's human captions, by file name.

type HumanCaptions = ReadonlyMap<string, readonly string[]>;

/** A COCO captions file's captions per image file name, in the file's order (the first is the one shown for earlier photos). */
export function humanCaptionsByFile(json: unknown, source: string): Map<string, string[]> {
  const { images, annotations } = (json ?? {}) as { images?: unknown; annotations?: unknown };
  if (!Array.isArray(images) || !Array.isArray(annotations))
    throw new Error(`${source} is not a COCO captions file (it needs "images" and "annotations" lists); it comes with ../shared/data/coco-mini.`);
  const fileById = new Map<unknown, string>();
  for (const image of images as { id?: unknown; file_name?: unknown }[]) if (typeof image?.file_name === 'string') fileById.set(image.id, image.file_name);
  const captions = new Map<string, string[]>();
  for (const annotation of annotations as { image_id?: unknown; caption?: unknown }[]) {
    const file = fileById.get(annotation?.image_id);
    if (file === undefined || typeof annotation.caption !== 'string') continue;
    const caption = annotation.caption.trim();
    if (caption === '') continue;
    captions.set(file, [...(captions.get(file) ?? []), caption]);
  }
  return captions;
}

export function readHumanCaptions(file: string): Map<string, string[]> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Could not read the human captions from ${file} (${(error as Error).message}); they come with ../shared/data/coco-mini.`);
  }
  return humanCaptionsByFile(json, file);
}

/** What a photo with no caption in the captions file is described as. */
const NO_HUMAN_CAPTION = 'no human caption';

function photoCaptions(captions: HumanCaptions, photo: string): readonly string[] {
  const found = captions.get(basename(photo));
  return found && found.length > 0 ? found : [NO_HUMAN_CAPTION];
}

// ---------------------------------------------------------------------------------------------
// The sheet and the key.

interface SheetReply {
  letter: string;
  /** The reply's elements in order: a text as itself, an image as [image: ALT]; a turn with no reply has one line, (no reply: ...). */
  shown: string[];
  /** Thumbnails of the reply's images, relative to the sheet; empty when there are none. */
  images: string[];
}

interface SheetTurn {
  /** t001, t002... in play order. */
  id: string;
  /** The visitor's earlier lines of this conversation, oldest first; `photo` describes a photo they shared (its first human caption). */
  earlier: { text: string; photo: string | null }[];
  line: string;
  /** What the photo shared with this line really shows (every human caption); null when there is no photo. */
  photo: { shows: readonly string[]; thumbnail: string | null } | null;
  replies: SheetReply[];
}

/** sheet.json: what the rater sees. Nothing in it says which build made a reply. */
export interface BlindSheet {
  about: string;
  ratingsFormat: string;
  turns: SheetTurn[];
}

type TurnKind = 'photo' | 'text';

interface KeyTurn {
  kind: TurnKind;
  conversationId: string;
  turn: number;
  /** Which build (its label) made the reply shown as each letter. */
  letters: Record<string, string>;
}

/** key.json: which build made which reply. Never shown to the rater. */
export interface BlindKey {
  about: string;
  builds: string[];
  turnsFile: string;
  pack: string;
  seed: number;
  date: string;
  /** Each build's raw played turns, by label: files beside the key. */
  replies: Record<string, string>;
  turns: Record<string, KeyTurn>;
}

type ShownElement = NonNullable<PlayedTurn['reply']>['elements'][number];

export interface BlindSheetInput {
  /** Each build's label and the turns it played, in play order; every build plays the same turns. */
  plays: readonly { label: string; turns: readonly PlayedTurn[] }[];
  captions: HumanCaptions;
  seed: number;
  turnsFile: string;
  pack: string;
  date: string;
  /** Each build's raw replies file, by label. */
  repliesFiles: Record<string, string>;
  /** A shared photo's thumbnail relative to the sheet, or null. */
  photoThumbnail?: (photo: string) => string | null;
  /** A reply image's thumbnail relative to the sheet (the build is the index into `plays`), or null. */
  imageThumbnail?: (play: number, image: Extract<ShownElement, { kind: 'image' }>) => string | null;
}

const RATINGS_FORMAT =
  'ratings.json: {"ratings": {"t001": {"A": {"relevance": 4, "naturalness": 5}, "B": {"relevance": 2, "naturalness": 3, "flags": ["unrelated"]}}, ...}}, every reply of every turn rated; relevance and naturalness are whole numbers from 1 to 5, and flags (optional) lists unrelated and/or asks_for_photo.';

const SHEET_ABOUT =
  'Visitor turns to rate as docs/visitor-rubric.md says. Each turn shows what the visitor said before, their line, what their photo really shows (human captions), and the replies, labelled A, B, C... in an order shuffled for each turn.';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The page's sentence for a turn with no reply, with any build label, folder or method name taken
 * out: an error message may name the method, which would unblind that reply.
 */
function withoutBuildNames(sentence: string, labels: readonly string[]): string {
  const names = [...labels, ...labels.map((l) => l.split('#')[0]!), ...RESPONSE_METHOD_IDS, ...RESPONSE_METHOD_IDS.map((id) => methodName(id))]
    .filter((n) => n.length > 0)
    .sort((a, b) => b.length - a.length);
  return names.reduce((s, name) => s.replace(new RegExp(`(?<![\\w-])${escapeRegExp(name)}(?![\\w-])`, 'gi'), '[…]'), sentence);
}

function shownReply(played: PlayedTurn, labels: readonly string[]): string[] {
  if (!played.reply) return [`(no reply: ${withoutBuildNames(played.problem ?? 'nothing shown', labels)})`];
  if (played.reply.elements.length === 0) return ['(empty reply)'];
  return played.reply.elements.map((e) => (e.kind === 'text' ? e.text : `[image: ${e.alt}]`));
}

function sameTurn(a: PlayedTurn, b: PlayedTurn): boolean {
  return a.conversationId === b.conversationId && a.turn === b.turn && a.text === b.text && a.photo === b.photo;
}

/** The builds' played turns must be the same turns in the same order, or the letters of a turn would compare different lines. */
function checkSameTurns(plays: BlindSheetInput['plays']): void {
  const [first, ...others] = plays;
  if (!first || others.length === 0) throw new Error(`A blind sheet needs the turns of at least two builds, and got ${plays.length}.`);
  for (const other of others) {
    if (other.turns.length !== first.turns.length)
      throw new Error(`"${other.label}" played ${other.turns.length} turns and "${first.label}" ${first.turns.length}; play every build from one turns file.`);
    const at = other.turns.findIndex((t, i) => !sameTurn(t, first.turns[i]!));
    if (at >= 0)
      throw new Error(
        `Turn ${at + 1} of "${other.label}" (${other.turns[at]!.conversationId} turn ${other.turns[at]!.turn}) is not the one "${first.label}" played; play every build from one turns file.`,
      );
  }
}

/** t001, t002...: opaque, in play order. */
function turnId(index: number): string {
  return `t${String(index + 1).padStart(3, '0')}`;
}

/**
 * The sheet and its key from the builds' played turns. The replies of each turn are put in an order
 * drawn from one seeded generator (the engine's Fisher-Yates), so the same seed gives the same
 * letters and each turn gets its own order.
 */
export function buildBlindSheet(input: BlindSheetInput): { sheet: BlindSheet; key: BlindKey } {
  checkSameTurns(input.plays);
  const labels = input.plays.map((p) => p.label);
  const next = seededRandom(input.seed);
  const reference = input.plays[0]!.turns;
  const sheetTurns: SheetTurn[] = [];
  const keyTurns: Record<string, KeyTurn> = {};
  for (const [index, played] of reference.entries()) {
    const id = turnId(index);
    const earlier = reference
      .slice(0, index)
      .filter((t) => t.conversationId === played.conversationId && t.turn < played.turn)
      .map((t) => ({ text: t.text, photo: t.photo === null ? null : photoCaptions(input.captions, t.photo)[0]! }));
    const order = shuffleWith(
      input.plays.map((_, i) => i),
      next,
    );
    const replies = order.map((play, position) => {
      const turn = input.plays[play]!.turns[index]!;
      const images = (turn.reply?.elements ?? []).flatMap((e) => (e.kind === 'image' ? [input.imageThumbnail?.(play, e) ?? null] : []));
      return { letter: LETTERS[position]!, shown: shownReply(turn, labels), images: images.filter((f): f is string => f !== null) };
    });
    sheetTurns.push({
      id,
      earlier,
      line: played.text,
      photo: played.photo === null ? null : { shows: photoCaptions(input.captions, played.photo), thumbnail: input.photoThumbnail?.(played.photo) ?? null },
      replies,
    });
    keyTurns[id] = {
      kind: played.photo === null ? 'text' : 'photo',
      conversationId: played.conversationId,
      turn: played.turn,
      letters: Object.fromEntries(order.map((play, position) => [LETTERS[position]!, labels[play]!])),
    };
  }
  return {
    sheet: { about: SHEET_ABOUT, ratingsFormat: RATINGS_FORMAT, turns: sheetTurns },
    key: {
      about:
        'Which build made each reply of sheet.json: for each turn id, the build (as given to --blind) behind each letter, and whether the visitor shared a photo. Not for the rater.',
      builds: labels,
      turnsFile: input.turnsFile,
      pack: input.pack,
      seed: input.seed,
      date: input.date,
      replies: input.repliesFiles,
      turns: keyTurns,
    },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** sheet.html: the sheet as a plain page, text first, the photos as small thumbnails after it. */
export function renderSheetHtml(sheet: BlindSheet): string {
  const turn = (t: SheetTurn): string => {
    const earlier =
      t.earlier.length === 0
        ? ''
        : `<p class="label">Earlier in this conversation the visitor said:</p><ol class="earlier">${t.earlier
            .map((e) => `<li>${escapeHtml(e.text)}${e.photo === null ? '' : ` <span class="photo-note">(shared a photo: ${escapeHtml(e.photo)})</span>`}</li>`)
            .join('')}</ol>`;
    const photo =
      t.photo === null
        ? ''
        : `<p class="label">Their photo shows (human captions):</p><ul class="shows">${t.photo.shows.map((s) => `<li>${escapeHtml(s)}</li>`).join('')}</ul>${
            t.photo.thumbnail === null ? '' : `<img class="thumb" src="${escapeHtml(t.photo.thumbnail)}" alt="The visitor's photo">`
          }`;
    const replies = t.replies
      .map(
        (r) =>
          `<li><span class="letter">${r.letter}</span><div>${r.shown.map((s) => `<p>${escapeHtml(s)}</p>`).join('')}${r.images
            .map((src) => `<img class="thumb" src="${escapeHtml(src)}" alt="">`)
            .join('')}</div></li>`,
      )
      .join('');
    return `<section id="${t.id}"><h2>${t.id}</h2>${earlier}<p class="line"><span class="label">The visitor says:</span> ${escapeHtml(t.line)}</p>${photo}<ol class="replies">${replies}</ol></section>`;
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Visitor replies to rate</title>
<style>
body { font: 16px/1.45 system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; color: #0f172a; }
section { border-top: 1px solid #cbd5e1; padding: 0.5rem 0 1rem; }
.label { color: #475569; }
.earlier, .shows { margin: 0.25rem 0; }
.line { font-weight: 600; }
.replies { list-style: none; padding: 0; }
.replies li { display: flex; gap: 0.75rem; margin: 0.5rem 0; }
.replies p { margin: 0; }
.letter { font-weight: 700; min-width: 1.5rem; }
.thumb { max-height: 96px; max-width: 160px; margin: 0.25rem 0.5rem 0 0; }
</style>
</head>
<body>
<h1>Visitor replies to rate</h1>
<p>${escapeHtml(sheet.about)}</p>
<p>${escapeHtml(sheet.ratingsFormat)}</p>
${sheet.turns.map(turn).join('\n')}
</body>
</html>
`;
}

// ---------------------------------------------------------------------------------------------
// Reading the key back.

/** key.json as --blind wrote it, checked: every turn's letters name each build once. */
export function parseBlindKey(json: unknown, source: string): BlindKey {
  const refuse = (why: string): never => {
    throw new Error(`${source} is not a key written by bench -- visitor --blind (${why}); give --key the key.json written with the sheet that was rated.`);
  };
  const key = (json ?? {}) as Partial<Record<keyof BlindKey, unknown>>;
  if (!Array.isArray(key.builds) || key.builds.length < 2 || !key.builds.every((b) => typeof b === 'string')) refuse('it has no list of builds');
  const builds = key.builds as string[];
  if (typeof key.turns !== 'object' || key.turns === null || Object.keys(key.turns).length === 0) refuse('it has no turns');
  for (const [id, turn] of Object.entries(key.turns as Record<string, unknown>)) {
    const { kind, letters } = (turn ?? {}) as { kind?: unknown; letters?: unknown };
    if (kind !== 'photo' && kind !== 'text') refuse(`turn ${id} is neither a photo nor a text turn`);
    const named = typeof letters === 'object' && letters !== null ? Object.values(letters) : [];
    if (named.length !== builds.length || builds.some((b) => !named.includes(b))) refuse(`the letters of turn ${id} do not name each build once`);
  }
  return key as BlindKey;
}

export function readBlindKey(file: string): BlindKey {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Could not read the key ${file} (${(error as Error).message}); give --key the key.json written with the sheet that was rated.`);
  }
  return parseBlindKey(json, file);
}

// ---------------------------------------------------------------------------------------------
// Ratings: checked against the key, then scored.

const RATING_FLAGS = ['unrelated', 'asks_for_photo'] as const;
type RatingFlag = (typeof RATING_FLAGS)[number];

interface ReplyRating {
  relevance: number;
  naturalness: number;
  flags: RatingFlag[];
}

/** Turn id → letter → rating, every reply of the key rated. */
export type Ratings = Record<string, Record<string, ReplyRating>>;

/** At most three entries, then how many more: "t001, t002 and t003", "t001, t002, t003 and 4 more (7 in all)". */
function fewOf(items: readonly string[]): string {
  const shown = items.length > 3 ? [...items.slice(0, 3), `${items.length - 3} more (${items.length} in all)`] : items;
  return shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]!}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueText(value: unknown): string {
  return value === undefined ? 'missing' : typeof value === 'number' ? String(value) : JSON.stringify(value);
}

const isScore = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 5;

/**
 * The ratings, checked against the key: every reply of the sheet rated, nothing else rated, scores
 * whole numbers from 1 to 5, flags known. A file that does not match is refused with one sentence
 * naming the first kind of problem and its first few places, so nothing is scored from a part of it.
 */
export function validateRatings(json: unknown, key: BlindKey, source: string): Ratings {
  const ratings = isRecord(json) ? json['ratings'] : undefined;
  if (!isRecord(ratings))
    throw new Error(
      `${source} has no "ratings" object; write {"ratings": {"t001": {"A": {"relevance": 4, "naturalness": 5}, ...}, ...}}, one entry per turn of the sheet.`,
    );
  const unknownTurns = Object.keys(ratings).filter((id) => !Object.hasOwn(key.turns, id));
  if (unknownTurns.length > 0)
    throw new Error(
      `${source} rates ${fewOf(unknownTurns)}, which ${unknownTurns.length === 1 ? 'is' : 'are'} not in the key; score the ratings with the key.json of the sheet that was rated.`,
    );
  const unknownLetters: string[] = [];
  const missing: string[] = [];
  const badScores: string[] = [];
  const badFlags: string[] = [];
  for (const [id, turn] of Object.entries(key.turns)) {
    const letters = Object.keys(turn.letters);
    const rated = ratings[id];
    if (rated !== undefined && !isRecord(rated)) {
      badScores.push(`${id} (${valueText(rated)} instead of one rating per letter)`);
      continue;
    }
    const extra = Object.keys(rated ?? {}).filter((l) => !letters.includes(l));
    if (extra.length > 0) unknownLetters.push(`${id} (${extra.join(', ')})`);
    const absent = letters.filter((l) => rated?.[l] === undefined);
    if (absent.length === letters.length) missing.push(id);
    else if (absent.length > 0) missing.push(`${id} (${absent.join(', ')})`);
    for (const letter of letters) {
      const rating = rated?.[letter];
      if (rating === undefined) continue;
      if (!isRecord(rating)) {
        badScores.push(`${id} (${letter}) ${valueText(rating)}`);
        continue;
      }
      for (const scale of ['relevance', 'naturalness'] as const)
        if (!isScore(rating[scale])) badScores.push(`${id} (${letter}) ${scale} ${valueText(rating[scale])}`);
      const flags = rating['flags'];
      if (flags === undefined) continue;
      if (!Array.isArray(flags)) badFlags.push(`${id} (${letter}) ${valueText(flags)}`);
      else for (const flag of flags) if (!(RATING_FLAGS as readonly unknown[]).includes(flag)) badFlags.push(`${id} (${letter}) ${valueText(flag)}`);
    }
  }
  if (unknownLetters.length > 0)
    throw new Error(`${source} rates letters the sheet does not show, ${fewOf(unknownLetters)}; rate only the replies each turn shows.`);
  if (missing.length > 0) throw new Error(`${source} has no rating for ${fewOf(missing)}; rate every reply of the sheet.`);
  if (badScores.length > 0)
    throw new Error(`${source} has scores that are not whole numbers from 1 to 5, ${fewOf(badScores)}; give relevance and naturalness as 1, 2, 3, 4 or 5.`);
  if (badFlags.length > 0) throw new Error(`${source} has flags it cannot read, ${fewOf(badFlags)}; flags is a list of ${RATING_FLAGS.join(' and ')}.`);
  return Object.fromEntries(
    Object.entries(key.turns).map(([id, turn]) => [
      id,
      Object.fromEntries(
        Object.keys(turn.letters).map((letter) => {
          const r = (ratings[id] as Record<string, { relevance: number; naturalness: number; flags?: RatingFlag[] }>)[letter]!;
          return [letter, { relevance: r.relevance, naturalness: r.naturalness, flags: [...(r.flags ?? [])] }];
        }),
      ),
    ]),
  );
}

interface MeanOf {
  /** Null when there are no turns of the kind. */
  mean: number | null;
  n: number;
}

interface ScaleMeans {
  all: MeanOf;
  text: MeanOf;
  photo: MeanOf;
}

interface BuildScores {
  build: string;
  relevance: ScaleMeans;
  naturalness: ScaleMeans;
  /** Shares of the build's replies (0 to 1) with each flag. */
  flagged: Record<RatingFlag, number>;
}

interface RelevanceDifference {
  build: string;
  other: string;
  /** Mean relevance of `build` minus that of `other`, over the same turns. */
  difference: number;
  /** Turns where `build`'s reply was rated more relevant, less, or the same. */
  better: number;
  worse: number;
  same: number;
}

export interface BlindScores {
  turns: { all: number; text: number; photo: number };
  builds: BuildScores[];
  relevanceDifferences: RelevanceDifference[];
}

function meanOf(values: readonly number[]): MeanOf {
  return { mean: values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length, n: values.length };
}

/** Per build, the mean scores over all turns, text turns and photo turns, and the flag shares; then each build's relevance against every other's. */
export function scoreRatings(ratings: Ratings, key: BlindKey): BlindScores {
  const byBuild = new Map(key.builds.map((b) => [b, [] as { kind: TurnKind; rating: ReplyRating }[]]));
  for (const [id, turn] of Object.entries(key.turns))
    for (const [letter, build] of Object.entries(turn.letters)) byBuild.get(build)!.push({ kind: turn.kind, rating: ratings[id]![letter]! });
  const means = (rated: { kind: TurnKind; rating: ReplyRating }[], scale: 'relevance' | 'naturalness'): ScaleMeans => ({
    all: meanOf(rated.map((r) => r.rating[scale])),
    text: meanOf(rated.filter((r) => r.kind === 'text').map((r) => r.rating[scale])),
    photo: meanOf(rated.filter((r) => r.kind === 'photo').map((r) => r.rating[scale])),
  });
  const builds = key.builds.map((build) => {
    const rated = byBuild.get(build)!;
    const share = (flag: RatingFlag) => rated.filter((r) => r.rating.flags.includes(flag)).length / rated.length;
    return {
      build,
      relevance: means(rated, 'relevance'),
      naturalness: means(rated, 'naturalness'),
      flagged: { unrelated: share('unrelated'), asks_for_photo: share('asks_for_photo') },
    };
  });
  const relevanceOf = (build: string): Map<string, number> =>
    new Map(Object.entries(key.turns).map(([id, turn]) => [id, ratings[id]![Object.keys(turn.letters).find((l) => turn.letters[l] === build)!]!.relevance]));
  const relevance = new Map(key.builds.map((b) => [b, relevanceOf(b)]));
  const relevanceDifferences = key.builds.flatMap((build) =>
    key.builds
      .filter((other) => other !== build)
      .map((other) => {
        const diffs = [...relevance.get(build)!].map(([id, r]) => r - relevance.get(other)!.get(id)!);
        return {
          build,
          other,
          difference: diffs.reduce((s, d) => s + d, 0) / diffs.length,
          better: diffs.filter((d) => d > 0).length,
          worse: diffs.filter((d) => d < 0).length,
          same: diffs.filter((d) => d === 0).length,
        };
      }),
  );
  const kinds = Object.values(key.turns).map((t) => t.kind);
  return {
    turns: { all: kinds.length, text: kinds.filter((k) => k === 'text').length, photo: kinds.filter((k) => k === 'photo').length },
    builds,
    relevanceDifferences,
  };
}

/** The scores as the command prints them: a table per build, then the relevance differences. */
export function formatBlindScores(scores: BlindScores): string {
  const mean = (m: MeanOf) => (m.mean === null ? '-' : m.mean.toFixed(2));
  const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
  const { all, text, photo } = scores.turns;
  const header = [
    'build',
    `relevance: all (n=${all})`,
    `text (n=${text})`,
    `photo (n=${photo})`,
    `naturalness: all (n=${all})`,
    `text (n=${text})`,
    `photo (n=${photo})`,
    'flagged: unrelated',
    'asks_for_photo',
  ];
  const rows = scores.builds.map((b) => [
    b.build,
    mean(b.relevance.all),
    mean(b.relevance.text),
    mean(b.relevance.photo),
    mean(b.naturalness.all),
    mean(b.naturalness.text),
    mean(b.naturalness.photo),
    percent(b.flagged.unrelated),
    percent(b.flagged.asks_for_photo),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const turns = (n: number) => `${n} ${n === 1 ? 'turn' : 'turns'}`;
  const differences = scores.relevanceDifferences.map(
    (d) =>
      `  ${d.build} against ${d.other}: ${d.difference >= 0 ? '+' : ''}${d.difference.toFixed(2)} (more relevant on ${turns(d.better)}, less on ${turns(d.worse)}, the same on ${turns(d.same)})`,
  );
  return [line(header), ...rows.map(line), '', 'mean relevance, each build against each other on the same turns:', ...differences].join('\n');
}
