import type { ChatEncoderRanker, ChatPool, ContextMatchRanker } from '../ranking/chatRanking';
import type { ResponseHeads } from './heads';
import type { ClipMapParams, ClipMapRanker } from '../ranking/clipMapRanker';
import type { ClipSimRanker } from '../ranking/clipSimRanker';
import type { HybridRanker, HybridWeights, hybridTextParts } from '../ranking/hybridRanker';
import type { LexicalRanker } from '../ranking/lexicalRanker';
import type { LookupRanker } from '../ranking/lookupRanker';
import type { RandomRanker } from '../ranking/randomRanker';
import type { Ranker } from '../ranking/ranker';
import { type CandidatePool, type Modality, RESPONSE_METHOD_IDS, type ResponseMethodId } from './types';

/**
 * Every response method, in one table: its id, the name people see (under a reply, in the
 * Inspector, in exports), what it needs, and how its ranker is built. The page imports this file for
 * names, so it holds no ranker code: the ranker classes come in through `kit` (rankerFactory.ts).
 * Adding a method is its id and its row here (and its ranker class); the compiler asks for the row.
 */

export { RESPONSE_METHOD_IDS, type ResponseMethodId };

/** The seed of the random baseline, for the page and every benchmark alike. */
export const RANDOM_SEED = 7;

/** What building a ranker may draw on; each method's `needs` says which parts it reads. */
export interface RankerInputs {
  pool: CandidatePool;
  heads: ResponseHeads | null;
  /** clip-map's maps: the Python heads' (heads.clipMap), or those the worker trained (localHeads.ts); null without either. */
  clipMap: ClipMapParams | null;
  /** The texts document frequencies come from: the pool's own texts (the collection ranked), never the split being evaluated. */
  dfCorpus: readonly string[];
  /** The conversational encoder's keys of this pool and its stored contexts; null when the pack has no encoder. */
  chat: ChatPool | null;
  /** The hybrid's weights, learned offline on valid data none of its parts was trained on (the pack's chat/fusion.json); null without them. */
  hybridWeights: HybridWeights | null;
}

interface MethodEntry {
  /** How the method is named to people. */
  readonly name: string;
  readonly needs: {
    /** 'python': the pack's trained heads (models/<pack>/heads); 'map': a clip-map, the heads' or one trained in the worker. */
    readonly heads: 'python' | 'map' | false;
    /** 'encoder': the pack's conversational encoder (models/<pack>/chat) and its keys of the pool; 'contexts': also the pool's stored contexts. */
    readonly chat: 'encoder' | 'contexts' | false;
    /** Document frequencies (tf-idf, BM25): counted over the pool's texts. */
    readonly train: boolean;
    /**
     * The pool's CLIP rows, per modality. 'live': ranks the matrix as it is filled, so a pool whose rows
     * are still being computed answers from those there so far; 'complete': keys are derived from every
     * row when the ranker is built, so it is built once all are there; false: reads none.
     */
    readonly clipRows: Readonly<Record<Modality, ClipRowsNeed>>;
    /** Images are ranked by their captions (and a shared photo by its caption), wholly or in part, rather than by their embeddings alone. */
    readonly captions: boolean;
  };
  /**
   * Also a scorer of `bench -- select` (text-only response selection). There the maps are the pack's
   * heads' clip-map, and the hybrid fuses the text parts it fuses in the page (DE++ is not a selection scorer).
   */
  readonly selection: boolean;
  create(kit: RankerKit, inputs: RankerInputs): Ranker | Promise<Ranker>;
}

/** The ranker classes the table builds from (rankerFactory.ts hands them in), so this file holds no ranker code. */
export interface RankerKit {
  RandomRanker: typeof RandomRanker;
  LexicalRanker: typeof LexicalRanker;
  LookupRanker: typeof LookupRanker;
  ClipSimRanker: typeof ClipSimRanker;
  ClipMapRanker: typeof ClipMapRanker;
  ChatEncoderRanker: typeof ChatEncoderRanker;
  ContextMatchRanker: typeof ContextMatchRanker;
  HybridRanker: typeof HybridRanker;
  hybridTextParts: typeof hybridTextParts;
}

type ClipRowsNeed = 'live' | 'complete' | false;
const NO_CLIP_ROWS = { text: false, image: false } as const;

export const RESPONSE_METHODS = {
  random: {
    name: 'random',
    needs: { heads: false, chat: false, train: false, captions: false, clipRows: NO_CLIP_ROWS },
    selection: true,
    create: (kit, { pool }) => new kit.RandomRanker(pool, RANDOM_SEED),
  },
  tfidf: {
    name: 'tf-idf',
    needs: { heads: false, chat: false, train: true, captions: true, clipRows: NO_CLIP_ROWS },
    selection: true,
    create: (kit, { pool, dfCorpus }) => new kit.LexicalRanker('tfidf', pool, dfCorpus),
  },
  bm25: {
    name: 'BM25',
    needs: { heads: false, chat: false, train: true, captions: true, clipRows: NO_CLIP_ROWS },
    selection: true,
    create: (kit, { pool, dfCorpus }) => new kit.LexicalRanker('bm25', pool, dfCorpus),
  },
  lookup: {
    name: 'lookup (what was said after the most similar stored context, by BM25)',
    // The baseline a visitor's reply is measured against (docs/visitor-benchmark.md): no learning, but the
    // stored contexts of the pool (chat:keys) say what followed what.
    needs: { heads: false, chat: 'contexts', train: true, captions: true, clipRows: NO_CLIP_ROWS },
    selection: false,
    create: (kit, { pool, chat, dfCorpus }) => new kit.LookupRanker(new kit.LexicalRanker('bm25', pool, dfCorpus), pool, chat!.contexts!),
  },
  'clip-sim': {
    name: 'CLIP similarity',
    needs: { heads: false, chat: false, train: false, captions: false, clipRows: { text: 'live', image: 'live' } },
    selection: true,
    create: (kit, { pool }) => new kit.ClipSimRanker(pool),
  },
  'clip-map': {
    name: 'clip-map',
    needs: { heads: 'map', chat: false, train: false, captions: false, clipRows: { text: 'complete', image: 'complete' } },
    selection: true,
    create: (kit, { pool, clipMap }) => new kit.ClipMapRanker(pool, clipMap!),
  },
  depp: {
    name: 'trained heads (DE++)',
    needs: { heads: 'python', chat: false, train: false, captions: false, clipRows: { text: 'complete', image: 'complete' } },
    selection: false,
    create: (_, { pool, heads }) => heads!.ranker(pool),
  },
  'chat-encoder': {
    name: 'conversational encoder',
    needs: { heads: false, chat: 'encoder', train: false, captions: true, clipRows: NO_CLIP_ROWS },
    selection: true,
    create: (kit, { chat }) => new kit.ChatEncoderRanker(chat!),
  },
  'context-match': {
    name: 'context match',
    needs: { heads: false, chat: 'contexts', train: false, captions: true, clipRows: NO_CLIP_ROWS },
    selection: true,
    create: (kit, { chat }) => new kit.ContextMatchRanker(chat!),
  },
  hybrid: {
    name: 'hybrid (BM25 + conversational encoder + context match + lexical context match + question-answer; images BM25 + DE++)',
    // Its images come from DE++, whose keys are derived from every image row.
    needs: { heads: 'python', chat: 'contexts', train: true, captions: true, clipRows: { text: false, image: 'complete' } },
    selection: true,
    create: async (kit, { pool, heads, chat, dfCorpus, hybridWeights }) => {
      // BM25 reads the turns it read when the weights were learned (`npm run chat:fuse`): for texts the
      // latest turn or all of them, as valid chose; for images the whole conversation.
      const bm25 = new kit.LexicalRanker('bm25', pool, dfCorpus, { turns: Infinity });
      const encoder = new kit.ChatEncoderRanker(chat!);
      return new kit.HybridRanker(
        {
          text: kit.hybridTextParts(
            bm25,
            pool,
            chat!,
            { bm25Turns: hybridWeights?.bm25Turns ?? Infinity, questionAnswer: hybridWeights?.questionAnswer ?? null },
            encoder,
          ),
          image: [bm25, await heads!.ranker(pool), encoder],
        },
        hybridWeights,
      );
    },
  },
} as const satisfies Record<ResponseMethodId, MethodEntry>;

/** The methods of text-only response selection (`bench -- select`). */
export type SelectionMethodId = { [K in ResponseMethodId]: (typeof RESPONSE_METHODS)[K]['selection'] extends true ? K : never }[ResponseMethodId];

export const SELECTION_METHOD_IDS = RESPONSE_METHOD_IDS.filter((id): id is SelectionMethodId => RESPONSE_METHODS[id].selection);

/** What a pack and pool offer the methods. */
export interface MethodParts {
  heads: boolean;
  clipMap: boolean;
  chat: boolean;
  contexts: boolean;
}

/** Whether a method can be built with these parts. */
export function methodAvailable(id: ResponseMethodId, parts: MethodParts): boolean {
  const { heads, chat } = RESPONSE_METHODS[id].needs;
  const headsOk = heads === false || (heads === 'python' ? parts.heads : parts.clipMap);
  const chatOk = chat === false || (chat === 'encoder' ? parts.chat : parts.chat && parts.contexts);
  return headsOk && chatOk;
}

function isResponseMethodId(value: string): value is ResponseMethodId {
  return Object.hasOwn(RESPONSE_METHODS, value);
}

/** The name people see; an id this version does not know (an old export) is shown as it is. */
export function methodName(id: string): string {
  return isResponseMethodId(id) ? RESPONSE_METHODS[id].name : id;
}
