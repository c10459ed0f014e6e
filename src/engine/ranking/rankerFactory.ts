import { EngineError } from '../errors';
import { ChatEncoderRanker, ContextMatchRanker } from './chatRanking';
import { RESPONSE_METHODS, type RankerInputs, type RankerKit, type ResponseMethodId, methodAvailable } from '../response/methods';
import { ClipMapRanker } from './clipMapRanker';
import { ClipSimRanker } from './clipSimRanker';
import { HybridRanker, hybridTextParts } from './hybridRanker';
import { LexicalRanker } from './lexicalRanker';
import { LookupRanker } from './lookupRanker';
import { RandomRanker } from './randomRanker';
import type { Ranker } from './ranker';

/** The ranker classes, handed to the method table so that it holds no ranker code (the page imports it for names). */
const KIT: RankerKit = {
  RandomRanker,
  LexicalRanker,
  LookupRanker,
  ClipSimRanker,
  ClipMapRanker,
  ChatEncoderRanker,
  ContextMatchRanker,
  HybridRanker,
  hybridTextParts,
};

function describeNeeds(method: ResponseMethodId): string {
  const { heads, chat } = RESPONSE_METHODS[method].needs;
  return [
    heads === 'python' ? 'trained heads' : heads === 'map' ? 'a clip-map' : '',
    chat === 'encoder' ? 'the conversational encoder' : chat === 'contexts' ? "the conversational encoder and the pool's stored contexts" : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/** The ranker of a method (RESPONSE_METHODS): the one factory of the page and the benchmarks. */
export async function createRanker(method: ResponseMethodId, inputs: RankerInputs): Promise<Ranker> {
  const entry = RESPONSE_METHODS[method];
  if (
    !methodAvailable(method, {
      heads: inputs.heads !== null,
      clipMap: inputs.clipMap !== null,
      chat: inputs.chat !== null,
      contexts: inputs.chat?.contexts != null,
    })
  ) {
    throw new EngineError(
      'invalid-input',
      `The method "${method}" needs parts this pack or pool does not have (${describeNeeds(method)}). Choose another method in Settings.`,
    );
  }
  return entry.create(KIT, inputs);
}
