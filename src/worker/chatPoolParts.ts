import { errorMessage } from '../engine/errors';
import { embedChatKeys, resolveStoredContexts } from '../engine/pool/chatPool';
import type { EmbeddedPool, PoolImageItem, PoolTextItem } from '../engine/pool/poolEmbeddings';
import type { SessionChat } from '../engine/response/session';
import { embeddingCache } from '../persistence/datasetDb';
import type { PoolRef } from '../protocol/protocol';
import { fetchPrecomputed, fetchStoredContexts } from './demoPoolFiles';
import type { PoolImageInfo } from './responder';

/**
 * The conversational encoder's keys of a pool (the demo's precomputed file, else this browser's cache,
 * else computed with a progress bar) and, for the demo pool, its stored contexts. Null without an
 * encoder; the encoder's methods are then not offered, and a failure here leaves the others working.
 */
export async function chatPoolParts(
  chat: SessionChat | null,
  packId: string,
  ref: PoolRef,
  embedded: EmbeddedPool<PoolTextItem, PoolImageItem>,
  images: readonly PoolImageInfo[],
  progress: (phase: string, done: number, total: number) => void,
  cancelled: () => boolean,
) {
  if (!chat) return null;
  try {
    const base = ref.kind === 'demo' ? `${ref.baseUrl}embeddings/${packId}` : null;
    const [precomputed, stored] = base ? await Promise.all([fetchPrecomputed(`${base}.chat`), fetchStoredContexts(`${base}.contexts`)]) : [null, null];
    const keys = await embedChatKeys({
      encoder: chat.encoder,
      texts: embedded.texts.map((t) => t.text),
      imageLabels: images.map((i) => i.label),
      precomputed,
      cache: embeddingCache,
      onProgress: ({ done, total }) => progress('conversational keys', done, total),
      cancelled,
      textContentKeys: embedded.textKeys,
    });
    return {
      textKeys: keys.textKeys,
      imageKeys: keys.imageKeys,
      contexts: stored
        ? resolveStoredContexts(
            stored,
            chat.encoder,
            embedded.texts.map((t) => t.text),
            embedded.textKeys,
          )
        : null,
    };
  } catch (error) {
    if (cancelled()) throw error;
    console.warn(`The conversational encoder's keys of this pool could not be made: ${errorMessage(error)}`);
    return null;
  }
}
