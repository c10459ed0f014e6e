import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClipEncoder } from '../../engine/clip/clipEncoder';
import { type StoredContextsFile, embedChatKeys, parseStoredContexts, resolveStoredContexts } from '../../engine/pool/chatPool';
import type { PoolEmbeddingsFile } from '../../engine/pool/poolEmbeddings';
import { parsePoolEmbeddings } from '../../engine/pool/poolEmbeddings';
import { ChatEncoder, type ChatFusion, loadChatFusion } from '../../engine/response/chatEncoder';
import { ResponseHeads } from '../../engine/response/heads';
import { type SessionChat, type SessionPool, sessionChat } from '../../engine/response/session';
import type { FsPackSource } from '../tools/fsPackSource';
import { loadWasmPack } from '../data/poolFiles';

/**
 * A pack's reply parts loaded the way the worker loads them (engine code, WASM, one thread), for the
 * Node tools: the CLIP encoder, the trained heads, the conversational encoder and its fusion settings.
 */
export interface PackReplyParts {
  packId: string;
  encoder: ClipEncoder;
  source: FsPackSource;
  files: string[];
  heads: ResponseHeads | null;
  chatEncoder: ChatEncoder | null;
  fusion: ChatFusion | null;
  chat: SessionChat | null;
}

/** `fusion: false` leaves the pack's chat/fusion.json unread (chat:fuse, which writes it anew). */
export async function loadReplyParts(packId: string, want: { heads?: boolean; chat?: boolean; fusion?: boolean } = {}): Promise<PackReplyParts> {
  const { encoder, source, files } = await loadWasmPack(packId);
  const fileSet = new Set(files);
  const heads = want.heads === false ? null : await ResponseHeads.load(source, fileSet, encoder.fingerprint);
  const chatEncoder = want.chat === false ? null : await ChatEncoder.load(source, fileSet, encoder.tokenizer);
  const fusion = chatEncoder && want.fusion !== false ? await loadChatFusion(source, fileSet) : null;
  return { packId, encoder, source, files, heads, chatEncoder, fusion, chat: chatEncoder ? sessionChat(chatEncoder, fusion) : null };
}

export async function releaseReplyParts(parts: PackReplyParts): Promise<void> {
  await Promise.all([parts.heads?.release(), parts.chatEncoder?.release(), parts.encoder.release()]);
}

function readPair(poolDir: string, packId: string, suffix: string): [unknown, Uint8Array, string] | null {
  const base = join(poolDir, 'embeddings', `${packId}.${suffix}`);
  if (!existsSync(`${base}.json`) || !existsSync(`${base}.bin`)) return null;
  return [JSON.parse(readFileSync(`${base}.json`, 'utf8')) as unknown, new Uint8Array(readFileSync(`${base}.bin`)), `${base}.json`];
}

/** The chat:keys output of a pack: its keys of the pool (<pool>/embeddings/<pack>.chat.*), or null when absent. */
export function readChatKeysFile(poolDir: string, packId: string): PoolEmbeddingsFile | null {
  const pair = readPair(poolDir, packId, 'chat');
  return pair && parsePoolEmbeddings(...pair);
}

/** The chat:keys output of a pack: its stored contexts (<pool>/embeddings/<pack>.contexts.*), or null when absent. */
function readStoredContextsFile(poolDir: string, packId: string): StoredContextsFile | null {
  const pair = readPair(poolDir, packId, 'contexts');
  return pair && parseStoredContexts(...pair);
}

/** The conversational encoder's part of a pool, from the chat:keys files (rows they lack are computed). */
export async function chatPoolOf(
  chat: SessionChat,
  poolDir: string,
  packId: string,
  texts: readonly string[],
  imageLabels: readonly string[],
  /** How many of `texts` are the pool's own; texts after them (a benchmark's held-out rows) get keys, and the stored contexts still match. */
  poolTextCount = texts.length,
): Promise<NonNullable<SessionPool['chat']>> {
  const keys = await embedChatKeys({ encoder: chat.encoder, texts, imageLabels, precomputed: readChatKeysFile(poolDir, packId) });
  const contexts = readStoredContextsFile(poolDir, packId);
  return {
    textKeys: keys.textKeys,
    imageKeys: keys.imageKeys,
    contexts: contexts ? resolveStoredContexts(contexts, chat.encoder, texts.slice(0, poolTextCount)) : null,
  };
}
