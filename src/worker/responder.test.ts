import { describe, expect, it } from 'vitest';
import type { ClipEncoder } from '../engine/clip/clipEncoder';
import type { ObjectDetector } from '../engine/detection/objectDetector';
import type { Detection } from '../engine/detection/types';
import { EngineError } from '../engine/errors';
import type { RgbaImage } from '../engine/image/rgbaImage';
import { PhotoAnalyzer } from '../engine/perception/photoAnalyzer';
import { embedPool, imageContentKey } from '../engine/pool/poolEmbeddings';
import { Responder } from './responder';
import type { ReplyResult } from '../protocol/protocol';

/**
 * The Responder with a fake image tower and a fake detector: what a shared photo's caption is, where
 * it came from, and what the text-only methods read for it.
 */
const DIM = 16;

/** A bag-of-words vector: texts that share words are near, as CLIP texts about one thing are. */
function wordVector(text: string): Float32Array {
  const v = new Float32Array(DIM);
  for (const word of text.toLowerCase().match(/[a-z']+/g) ?? []) {
    let h = 7;
    for (const c of word) h = (h * 31 + c.charCodeAt(0)) % 9973;
    v[h % DIM]! += 1;
  }
  v[DIM - 1]! += 0.01; // never all zero
  return v;
}

function fakeEncoder(): ClipEncoder & { imageCalls: number } {
  const encoder = {
    fingerprint: 'fake-encoder',
    takesGrounding: false,
    imageCalls: 0,
    async encodeTexts(texts: readonly string[]) {
      return texts.map(wordVector);
    },
    async encodeImages(images: readonly RgbaImage[]) {
      encoder.imageCalls += images.length;
      // Every photo "looks like" a coffee mug to this tower.
      return images.map(() => wordVector('coffee mug'));
    },
  };
  return encoder as unknown as ClipEncoder & { imageCalls: number };
}

const cup: Detection = { classIndex: 41, label: 'cup', score: 0.581234, box: { x1: 169.844, y1: 15.5018, x2: 415.862, y2: 267.7017 } };
const spoon: Detection = { classIndex: 44, label: 'spoon', score: 0.2, box: { x1: 10, y1: 10, x2: 40, y2: 40 } };

function fakeDetector(result: () => Detection[]): ObjectDetector & { calls: number } {
  const detector = {
    fingerprint: 'fake-detector',
    calls: 0,
    async detect(image: RgbaImage) {
      detector.calls += 1;
      return { width: image.width, height: image.height, detections: result(), timings: { preprocessMs: 0, inferenceMs: 0 } };
    },
  };
  return detector as unknown as ObjectDetector & { calls: number };
}

const DECOY = "I can't tell what is in this photo either";
const TEXTS = ['hello there', 'what a nice cup of coffee', 'the mountains were lovely', DECOY];
const backend = { provider: 'wasm' as const, dtypes: { text_model: 'fp32' as const, vision_model: 'fp32' as const }, reason: 'test', fallbackFrom: null };
const photo: RgbaImage = { width: 600, height: 400, data: new Uint8Array(600 * 400 * 4).fill(200) };

async function responderWith(
  detector: ObjectDetector | null,
  onDetectorFailed?: (reason: string) => void,
  encoder: ClipEncoder = fakeEncoder(),
): Promise<Responder> {
  const analyzer = new PhotoAnalyzer(encoder, detector);
  const responder = new Responder(analyzer, null, 'no heads', undefined, onDetectorFailed);
  const images = [{ key: 'mug', sha256: 'a'.repeat(64) }];
  const embedded = await embedPool({
    encoder: analyzer,
    texts: TEXTS.map((text, i) => ({ id: String(i), text })),
    images,
    imageKeys: images.map((m) => imageContentKey(m)),
    loadImage: async () => photo,
  });
  responder.setPool(
    embedded,
    null,
    [{ key: 'mug', alt: 'A coffee mug on a table', label: 'coffee mug', url: null, kind: 'photo', keywords: [] }],
    null,
    {},
    async () => null,
  );
  return responder;
}

function sharePhoto(responder: Responder, imageId: string): Promise<ReplyResult> {
  return responder.reply(
    { history: [], texts: [], images: [{ imageId, name: `${imageId}.jpg`, blob: new Blob(['jpeg']) }], method: 'bm25' },
    async () => photo,
    backend,
  );
}

const replyText = (reply: ReplyResult) => reply.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : []));

describe('Responder: every shared photo goes through the detector', () => {
  it("captions a photo from its boxes, sends the boxes, and gives BM25 the caption as the photo's text", async () => {
    const detector = fakeDetector(() => [cup, spoon]);
    const responder = await responderWith(detector);
    // The test pack's image tower takes no grounding, so the pool's images are embedded without detection.
    expect(detector.calls).toBe(0);
    const reply = await sharePhoto(responder, 'p1');
    expect(detector.calls).toBe(1);
    expect(reply.captions).toEqual([
      {
        imageId: 'p1',
        text: 'A cup.',
        source: 'grounded',
        confident: true,
        score: cup.score,
        // Only what the caption reads (score 0.3 and up), rounded to keep the stored conversation small.
        detections: { width: 600, height: 400, objects: [{ label: 'cup', score: 0.581, box: { x1: 169.8, y1: 15.5, x2: 415.9, y2: 267.7 } }] },
        // What the caption is about: a reply that names it is preferred (session.ts replyPlan).
        mainObject: 'cup',
      },
    ]);
    expect(reply.timings.detectMs).toBeGreaterThanOrEqual(0);
    // "A cup." shares "cup" with one pool text only.
    expect(replyText(reply)).toEqual(['what a nice cup of coffee']);
  });

  it("says it can't tell when nothing is confident, and that sentence matches no dialogue", async () => {
    const reply = await sharePhoto(await responderWith(fakeDetector(() => [{ ...cup, score: 0.4 }])), 'p2');
    expect(reply.captions[0]).toMatchObject({ text: "I can't tell what is in this photo.", source: 'grounded', confident: false, score: 0 });
    expect(reply.captions[0]!.detections!.objects.map((o) => o.label)).toEqual(['cup']);
    expect(replyText(reply)).not.toContain(DECOY);
  });

  it('without a detector, captions from the caption bank by the image embedding, as before', async () => {
    const reply = await sharePhoto(await responderWith(null), 'p3');
    expect(reply.captions).toEqual([
      { imageId: 'p3', text: 'A photo of a coffee mug.', source: 'image-encoder', confident: true, score: expect.any(Number), detections: null },
    ]);
    expect(reply.timings.detectMs).toBe(0);
  });

  it('when the detector fails on a photo, the reply still comes, and later photos go without it', async () => {
    const failures: string[] = [];
    let failing = false;
    const detector = fakeDetector(() => {
      if (failing) throw new EngineError('backend-failed', 'The object detector failed: out of memory.');
      return [cup];
    });
    const responder = await responderWith(detector, (reason) => failures.push(reason));
    failing = true;
    const first = await sharePhoto(responder, 'p4');
    expect(first.captions[0]).toMatchObject({ source: 'image-encoder', detections: null });
    expect(failures).toEqual(['The object detector failed: out of memory.']);
    const second = await sharePhoto(responder, 'p5');
    expect(second.captions[0]).toMatchObject({ imageId: 'p5', source: 'image-encoder' });
    expect(detector.calls).toBe(1); // the photo it failed on; not the next photo
    expect(failures).toHaveLength(1);
  });

  it('an image tower that fails still fails the reply, and the detector is not blamed', async () => {
    const failures: string[] = [];
    const encoder = fakeEncoder();
    const responder = await responderWith(
      fakeDetector(() => [cup]),
      (reason) => failures.push(reason),
      encoder,
    );
    encoder.encodeImages = async () => {
      throw new EngineError('backend-failed', 'The image encoder failed.');
    };
    await expect(sharePhoto(responder, 'p6')).rejects.toThrow('The image encoder failed.');
    expect(failures).toEqual([]);
  });
});
