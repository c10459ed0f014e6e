import { describe, expect, it } from 'vitest';
import type { ResponseHeads } from '../engine/response/heads';
import type { SessionChat } from '../engine/response/session';
import { replyModelsNote, usable } from './replyModels';

const heads = {} as ResponseHeads;
const chat = (hybridWeights: unknown) => ({ hybridWeights }) as unknown as SessionChat;

describe("the note on a pack's reply models", () => {
  it('says which models replies use, and why one that is there could not be used', () => {
    expect(replyModelsNote(heads, chat({ text: [1] }))).toBe(
      'This pack has trained heads: replies use the trained intent head and the trained DE++ ranker; Settings offers the hybrid of BM25 and DE++, clip-map and the zero-shot methods. Texts come from the conversational encoder trained on real conversations (DailyDialog, Topical-Chat), fused with BM25 and context match.',
    );
    expect(replyModelsNote(null, chat(null))).toBe(
      'This pack has no trained heads from Python: replies use the zero-shot methods and the majority intent until clip-map and the intent head are trained in this browser (the status area shows it). Texts come from the conversational encoder trained on real conversations (DailyDialog, Topical-Chat), fused with BM25 and context match (with even weights: the pack has no learned ones).',
    );
    // A damaged heads file keeps its reason (it was replaced by the note for a pack without heads before).
    expect(replyModelsNote({ failed: 'heads/intent.onnx could not be loaded.' }, { failed: 'chat/chat.json is missing.' })).toBe(
      "The pack's trained heads could not be used (heads/intent.onnx could not be loaded), so replies use the zero-shot methods and the majority intent until clip-map and the intent head are trained in this browser (the status area shows it). The pack's conversational encoder could not be used (chat/chat.json is missing), so texts come from the methods without it.",
    );
    expect(replyModelsNote(heads, null)).not.toContain('conversational encoder');
  });

  it('uses only what loaded', () => {
    expect(usable(heads)).toBe(heads);
    expect(usable<ResponseHeads>(null)).toBeNull();
    expect(usable<ResponseHeads>({ failed: 'no' })).toBeNull();
  });
});
