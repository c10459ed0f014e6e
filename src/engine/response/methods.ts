import type { DialogueRecord } from '../datasets/mmdialog';
import type { ResponseHeads } from './heads';
import type { ClipMapParams, Ranker, RankerKit } from './rankers';
import type { CandidatePool } from './types';

/**
 * Every response method, in one table: its id, the name people see (under a reply, in the
 * Inspector, in exports), what it needs, and how its ranker is built. The page imports this file for
 * names, so it holds no ranker code: the ranker classes come in through `kit` (see createRanker).
 * Adding a method is its id and its row here (and its ranker class); the compiler asks for the row.
 */

/** Every method's id, simplest first (the order of benchmark tables and of Settings). */
export const RESPONSE_METHOD_IDS = ['random', 'tfidf', 'bm25', 'clip-sim', 'clip-map', 'depp', 'hybrid'] as const;
export type ResponseMethodId = (typeof RESPONSE_METHOD_IDS)[number];

/** The seed of the random baseline, for the page and every benchmark alike. */
export const RANDOM_SEED = 7;

/** What building a ranker may draw on; each method's `needs` says which parts it reads. */
export interface RankerInputs {
  pool: CandidatePool;
  heads: ResponseHeads | null;
  /** clip-map's maps: the Python heads' (heads.clipMap), or those the worker trained (localHeads.ts); null without either. */
  clipMap: ClipMapParams | null;
  /** The texts document frequencies come from: the train split's, never the split being evaluated. */
  dfCorpus: readonly string[];
  /** The train split's dialogues (null without one), for what a method learns on them: the hybrid's weights. */
  train: readonly DialogueRecord[] | null;
}

interface MethodEntry {
  /** How the method is named to people. */
  readonly name: string;
  readonly needs: {
    /** 'python': the pack's trained heads (models/<pack>/heads); 'map': a clip-map, the heads' or one trained in the worker. */
    readonly heads: 'python' | 'map' | false;
    /** The train split: its texts for document frequencies, its dialogues for what the method learns (the hybrid's weights). */
    readonly train: boolean;
    /** Images are ranked by their captions (and a shared photo by its caption), wholly or in part, rather than by their embeddings alone. */
    readonly captions: boolean;
  };
  /**
   * Also a scorer of `bench -- select` (text-only response selection). There the maps are the pack's
   * heads' clip-map, and the hybrid fuses BM25 with clip-map (DE++ is not a selection scorer).
   */
  readonly selection: boolean;
  create(kit: RankerKit, inputs: RankerInputs): Ranker | Promise<Ranker>;
}

export const RESPONSE_METHODS = {
  random: {
    name: 'random',
    needs: { heads: false, train: false, captions: false },
    selection: true,
    create: (kit, { pool }) => new kit.RandomRanker(pool, RANDOM_SEED),
  },
  tfidf: {
    name: 'tf-idf',
    needs: { heads: false, train: true, captions: true },
    selection: true,
    create: (kit, { pool, dfCorpus }) => new kit.LexicalRanker('tfidf', pool, dfCorpus),
  },
  bm25: {
    name: 'BM25',
    needs: { heads: false, train: true, captions: true },
    selection: true,
    create: (kit, { pool, dfCorpus }) => new kit.LexicalRanker('bm25', pool, dfCorpus),
  },
  'clip-sim': {
    name: 'CLIP similarity',
    needs: { heads: false, train: false, captions: false },
    selection: true,
    create: (kit, { pool }) => new kit.ClipSimRanker(pool),
  },
  'clip-map': {
    name: 'clip-map',
    needs: { heads: 'map', train: false, captions: false },
    selection: true,
    create: (kit, { pool, clipMap }) => new kit.ClipMapRanker(pool, clipMap!),
  },
  depp: {
    name: 'trained heads (DE++)',
    needs: { heads: 'python', train: false, captions: false },
    selection: false,
    create: (_, { pool, heads }) => heads!.ranker(pool),
  },
  hybrid: {
    name: 'hybrid (BM25 + DE++)',
    needs: { heads: 'python', train: true, captions: true },
    selection: true,
    create: async (kit, { pool, heads, dfCorpus, train }) => kit.HybridRanker.learn(new kit.LexicalRanker('bm25', pool, dfCorpus), await heads!.ranker(pool), pool, train),
  },
} as const satisfies Record<ResponseMethodId, MethodEntry>;

/** The methods of text-only response selection (`bench -- select`). */
export type SelectionMethodId = { [K in ResponseMethodId]: (typeof RESPONSE_METHODS)[K]['selection'] extends true ? K : never }[ResponseMethodId];

export const SELECTION_METHOD_IDS = RESPONSE_METHOD_IDS.filter((id): id is SelectionMethodId => RESPONSE_METHODS[id].selection);

/** Whether a method can be built with these parts. */
export function methodAvailable(id: ResponseMethodId, parts: { heads: boolean; clipMap: boolean }): boolean {
  const needs = RESPONSE_METHODS[id].needs.heads;
  return needs === false || (needs === 'python' ? parts.heads : parts.clipMap);
}

export function isResponseMethodId(value: string): value is ResponseMethodId {
  return Object.hasOwn(RESPONSE_METHODS, value);
}

/** The name people see; an id this version does not know (an old export) is shown as it is. */
export function methodName(id: string): string {
  return isResponseMethodId(id) ? RESPONSE_METHODS[id].name : id;
}
