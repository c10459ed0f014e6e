import { Tokenizer } from '@huggingface/tokenizers';
import { EngineError } from '../errors';
import { hashText } from '../pool/contentHash';

/** A batch of token ids padded to its longest row, ready for the text tower. */
export interface TokenBatch {
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  batchSize: number;
  sequenceLength: number;
  /** Unpadded ids per text, for display and tests. */
  ids: number[][];
}

const END_OF_TEXT = '<|endoftext|>';

/**
 * CLIP's byte-level BPE tokenizer (tokenizer.json of the pack). Truncation keeps the end-of-text
 * token, because the text tower pools its output there.
 */
export class ClipTokenizer {
  private readonly tokenizer: Tokenizer;
  private readonly endOfTextId: number;
  /** Changes with the tokenizer's files: a model trained on this tokenizer's ids checks it. */
  readonly fingerprint: string;

  constructor(
    tokenizerJson: unknown,
    tokenizerConfig: unknown,
    readonly maxLength: number,
  ) {
    try {
      this.tokenizer = new Tokenizer(tokenizerJson as object, tokenizerConfig ?? {});
    } catch (cause) {
      throw new EngineError('pack-file-corrupt', 'tokenizer.json could not be read as a tokenizer. Restore the model pack and reload.', { cause });
    }
    const eot = this.tokenizer.token_to_id(END_OF_TEXT);
    if (eot === undefined) {
      throw new EngineError(
        'pack-file-corrupt',
        `tokenizer.json has no ${END_OF_TEXT} token, so it is not a CLIP tokenizer. Restore the model pack and reload.`,
      );
    }
    this.endOfTextId = eot;
    this.fingerprint = hashText(JSON.stringify([tokenizerJson, tokenizerConfig ?? {}]));
  }

  encode(text: string): number[] {
    const ids = this.tokenizer.encode(text).ids;
    if (ids.length <= this.maxLength) return ids;
    return [...ids.slice(0, this.maxLength - 1), this.endOfTextId];
  }

  /** Pads with end-of-text (CLIP's pad token) and masks the padding. */
  encodeBatch(texts: readonly string[]): TokenBatch {
    const ids = texts.map((t) => this.encode(t));
    const sequenceLength = Math.max(1, ...ids.map((row) => row.length));
    const inputIds = new BigInt64Array(texts.length * sequenceLength).fill(BigInt(this.endOfTextId));
    const attentionMask = new BigInt64Array(texts.length * sequenceLength);
    ids.forEach((row, r) => {
      row.forEach((id, c) => {
        inputIds[r * sequenceLength + c] = BigInt(id);
        attentionMask[r * sequenceLength + c] = 1n;
      });
    });
    return { inputIds, attentionMask, batchSize: texts.length, sequenceLength, ids };
  }
}
