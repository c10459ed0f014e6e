import { describe, expect, it } from 'vitest';
import { readStoredMessages } from '../../persistence/storedMessages';
import type { ChatMessage, PhotoElement, PoolReplyMeta, VideoElement, VideoReplyMeta } from '../../shared/conversation';
import { storable } from './storedConversation';

const detections = { width: 600, height: 400, objects: [{ label: 'cup', score: 0.58, box: { x1: 170, y1: 15.5, x2: 415.9, y2: 267.7 } }] };
/**
 * The fixtures are typed Required<...>: a field added to the conversation's types must be filled in
 * here before this file compiles, and the round trip below then shows it stored and read back by the
 * one generic function (issue 40: the stored message is the chat's own, and nothing forgets a field).
 */
const photo: Required<PhotoElement> = {
  kind: 'image',
  imageId: 'p1',
  name: 'coffee.jpg',
  width: 600,
  height: 400,
  caption: 'A cup on a saucer.',
  captionSource: 'captioner',
  captionConfident: true,
  captionHedged: true,
  groundedCaption: 'A cup.',
  detections,
  check: 'fit',
};
const backend = {
  provider: 'wasm' as const,
  dtypes: { text_model: 'fp32' as const, vision_model: 'fp32' as const },
  reason: 'no WebGPU adapter',
  fallbackFrom: null,
};
const score = { mmRelevance: { pairScores: [41], precision: 41, recall: 41, f1: 41 }, intentF1: { precision: 100, recall: 100, f1: 100 }, ranks: [] };

const reply = (meta: Required<Omit<PoolReplyMeta, 'video'>>) => meta;
const videoReply = (meta: Required<Omit<VideoReplyMeta, 'screened'>>) => meta;
const video = (element: Required<VideoElement>) => element;
const analysis = (analysed: Required<NonNullable<VideoElement['analysis']>>) => analysed;

const conversation: ChatMessage[] = [
  { id: 'm1', role: 'user', createdAt: 1, elements: [photo, { kind: 'text', text: 'my coffee' }] },
  {
    id: 'm2',
    role: 'assistant',
    createdAt: 2,
    elements: [
      { kind: 'text', text: 'looks good' },
      { kind: 'poolImage', key: 'emoji/hot_beverage', alt: 'Hot beverage', url: '/pool/media/hot_beverage.webp', poolId: 'demo' },
    ],
    reply: reply({
      method: 'clip-sim',
      intentModel: 'head',
      relevance: 0.31,
      steps: [{ probabilities: [0.6, 0.3, 0.1], intent: 'text', candidates: [{ kind: 'text', label: 'looks good', score: 0.4 }] }],
      timings: { decodeMs: 1, detectMs: 2, encodeMs: 3, captionMs: 4, intentMs: 5, rankMs: 6, totalMs: 21 },
      provider: 'wasm',
      backend,
      packName: 'mini-clip',
      poolId: 'demo',
      poolName: 'Demo pool',
      screened: 'insults',
    }),
    reference: {
      elements: [
        { kind: 'text', text: 'nice mug' },
        { ...photo, imageId: 'p2' },
      ],
      score,
    },
  },
  {
    id: 'm3',
    role: 'user',
    createdAt: 3,
    elements: [
      video({
        kind: 'video',
        videoId: 'v1',
        posterId: 'v1p',
        sheetId: 'v1s',
        name: 'clip.webm',
        width: 320,
        height: 240,
        seconds: 4,
        hasAudio: true,
        description: 'a green square; someone speaks at the start',
        analysis: analysis({
          description: 'a green square; someone speaks at the start',
          features: { video: [0.5, 0], audio: [0.25] },
          frames: [{ time: 0.25, detections, shapes: [{ label: 'green square', x: 0.5, y: 0.4 }] }],
          timeline: { frameSeconds: 0.032, loudnessDb: [-54.1, -12.3], speech: [0.02, 0.99] },
          speechChecked: true,
          detectorUsed: true,
          shown: { drawn: true, answer: '' },
          check: 'fit',
        }),
      }),
      { kind: 'text', text: 'does anyone speak?' },
    ],
  },
  {
    id: 'm4',
    role: 'assistant',
    createdAt: 4,
    elements: [{ kind: 'text', text: 'yes, someone says a few words' }],
    reply: videoReply({
      video: {
        videoId: 'v1',
        answeredFrom: 'ranker',
        question: 'does anyone speak?',
        model: 'q-dh-v-a',
        candidates: [{ text: 'yes, someone says a few words', score: 9.5 }],
        candidateCount: 100,
      },
      totalMs: 12,
      provider: 'wasm',
      packName: 'mini-clip',
    }),
  },
  {
    id: 'm5',
    role: 'assistant',
    createdAt: 5,
    elements: [{ kind: 'text', text: 'A cup.' }],
    reply: { video: { videoId: 'v1', question: 'what is in the video?', answeredFrom: 'frames' }, totalMs: 0.4 },
  },
  {
    id: 'm6',
    role: 'assistant',
    createdAt: 6,
    elements: [{ kind: 'text', text: 'I watched your 4.0 s video: a cup. Ask me about it.' }],
    reply: { video: { videoId: 'v1', answeredFrom: 'watched' }, totalMs: 0.1 },
  },
];

describe('the conversation as the chat stores it', () => {
  it('comes back from IndexedDB as it was, every field included', () => {
    const stored = structuredClone(conversation.map(storable));
    expect(readStoredMessages(stored)).toEqual(conversation);
  });

  it('keeps every key of every fixture, at every depth', () => {
    const keys = (value: unknown, path = ''): string[] =>
      typeof value === 'object' && value !== null ? Object.entries(value).flatMap(([k, v]) => [`${path}.${k}`, ...keys(v, `${path}.${k}`)]) : [];
    expect(keys(structuredClone(conversation.map(storable)))).toEqual(keys(conversation));
  });

  it('reads answers about videos stored before the one turn path (a videoAnswer beside no reply) into the reply, as the chat now writes them', () => {
    const legacy = [
      {
        id: 'm4',
        role: 'assistant',
        createdAt: 4,
        elements: [{ kind: 'text', text: 'yes, someone says a few words' }],
        // The oldest had no answeredFrom: every answer was ranked then.
        videoAnswer: {
          videoId: 'v1',
          question: 'does anyone speak?',
          model: 'q-dh-v-a',
          candidates: [{ text: 'yes, someone says a few words', score: 9.5 }],
          candidateCount: 100,
          totalMs: 12,
        },
      },
      {
        id: 'm5',
        role: 'assistant',
        createdAt: 5,
        elements: [{ kind: 'text', text: 'A cup.' }],
        videoAnswer: { videoId: 'v1', question: 'what is in the video?', answeredFrom: 'frames', totalMs: 0.4 },
      },
    ];
    const { provider: _, packName: __, ...ranked } = conversation[3]!.reply as VideoReplyMeta;
    expect(readStoredMessages(legacy)).toEqual([{ ...conversation[3]!, reply: ranked }, conversation[4]!]);
  });

  it('writes no key for a field the message does not have, at any depth, as records written before', () => {
    const plain: ChatMessage = {
      id: 'm3',
      role: 'user',
      createdAt: 3,
      elements: [{ kind: 'image', imageId: 'p3', name: 'a.jpg', width: 6, height: 4, caption: undefined, detections: undefined }],
      reply: undefined,
    };
    const stored = storable(plain);
    expect(Object.keys(stored)).toEqual(['id', 'role', 'createdAt', 'elements']);
    expect(Object.keys(stored.elements[0]!)).toEqual(['kind', 'imageId', 'name', 'width', 'height']);
    expect(plain.elements[0]).toHaveProperty('caption');
  });
});
