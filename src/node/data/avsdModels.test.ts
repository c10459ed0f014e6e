import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { chooseExecutionPlan } from '../../engine/onnx/executionPlan';
import { AVSD_SPLITS, generateAvsdSplit, trainAnswerBank } from '../../engine/video/avsdDataset';
import { avsdItems, avsdModelFigures, rankAll } from '../../engine/video/avsdEvaluation';
import { AvsdRankers } from '../../engine/video/avsdRankers';
import { SpeechDetector } from '../../engine/video/speechDetector';
import { answerVideoTurn, askedAbout } from '../../engine/video/videoTurn';
import { ReplySession } from '../../engine/response/session';
import { PhotoAnalyzer } from '../../engine/perception/photoAnalyzer';
import type { ClipEncoder } from '../../engine/clip/clipEncoder';
import { SharedVideos } from '../../worker/sharedVideos';
import { generateClip } from '../../engine/video/videoClips';
import { clipFeatures, loadSpeechDetector } from './avsdData';
import { writeAvsdClips } from './avsdGenerate';
import { clipAudio, clipVideoInput, loadSpeech } from './avsdMedia';
import { FsPackSource } from '../tools/fsPackSource';

const MODELS_DIR = join('models', 'avsd');
const WASM = () => chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true });
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'avsd-'));
  dirs.push(dir);
  return dir;
};

/** The worker's owner of shared videos as model.worker.ts makes it, on WASM and without a pack's photo path. */
const sharedVideos = () =>
  new SharedVideos(
    async () => WASM(),
    () => ({ analyzer: null, photoCheck: null }),
  );

/**
 * The reply session with an empty pool: a turn about a video ranks nothing of the pool and encodes
 * nothing, so its encoder throws if asked.
 */
function videoSession(): ReplySession {
  const encoder = new Proxy({} as ClipEncoder, {
    get: () => () => {
      throw new Error('a turn about a video encodes nothing');
    },
  });
  const session = new ReplySession(new PhotoAnalyzer(encoder, null), null);
  const empty = { data: new Float32Array(0), rows: 0, dim: 512 };
  session.setPool({ texts: [], textMatrix: empty, images: [], imageMatrix: empty, train: async () => null });
  return session;
}

/** A clip as the page hands it to the worker: its frames' pixels and its sound. */
const videoPayload = (input: ReturnType<typeof clipVideoInput>) => ({
  seconds: input.seconds,
  frames: input.frames.map((f) => ({ time: f.time, width: f.image.width, height: f.image.height, pixels: new Uint8ClampedArray(f.image.data) })),
  audio: input.audio,
});

/** models/avsd served on loopback, as the page's server serves it. */
async function serveModels(): Promise<{ baseUrl: string; close: () => void }> {
  const server = createServer((request, response) => {
    try {
      response.end(readFileSync(join(MODELS_DIR, decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname))));
    } catch {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, close: () => server.close() };
}

describe('the shipped video models (models/avsd)', () => {
  it('rank the val split through the engine as PyTorch ranked it when they were trained', async () => {
    const source = new FsPackSource(MODELS_DIR);
    const rankers = await AvsdRankers.load(source, await source.listFiles(), WASM(), 'all');
    const training = JSON.parse(readFileSync(join(MODELS_DIR, 'training.json'), 'utf8')) as Record<string, { best_val_mrr: number }>;
    // The val clips are made again here and go through analyzeVideo (frames, Silero VAD, features), the
    // arrays avsd:data wrote for the recipe: the export, the features and the runtime are checked together.
    const records = generateAvsdSplit('val', trainAnswerBank());
    const items = avsdItems(records, await clipFeatures(records, await loadSpeechDetector()));
    expect(items).toHaveLength(AVSD_SPLITS.val.clips * 6);
    expect(rankers.models).toEqual(['q', 'q-dh', 'q-dh-v', 'q-dh-a', 'q-dh-v-a']);
    for (const model of rankers.models) {
      const { all } = avsdModelFigures(await rankAll(rankers, model, items));
      expect(all.mrr / 100, model).toBeCloseTo(training[model]!.best_val_mrr, 3);
    }
  }, 180_000);

  it("answer a question about a video in the reply session, with the rankers the worker loads as the page does, exactly as bench -- avsd-video's page way", async () => {
    const server = await serveModels();
    try {
      const source = new FsPackSource(MODELS_DIR);
      const files = [...(await source.listFiles())];
      const records = generateAvsdSplit('val', trainAnswerBank(), 1);
      const [features] = await clipFeatures(records, await loadSpeechDetector());
      const rounds = records[0]!.dialog.rounds;
      // As the page sends them: plain arrays (the worker rounds them when it analyzes a video).
      const question = {
        question: rounds[1]!.question,
        earlier: rounds.slice(0, 1),
        video: Float32Array.from(features!.video, (v) => Math.round(v * 1000) / 1000),
        audio: Float32Array.from(features!.audio, (v) => Math.round(v * 1000) / 1000),
      };
      const turn = askedAbout('v1', question);
      const videos = sharedVideos();
      const reply = await videoSession().compose([{ elements: [{ kind: 'text', text: question.question }] }], {
        video: { turn, rankers: () => videos.rankers({ baseUrl: server.baseUrl, files }, true) },
      });
      // bench -- avsd-video's page way, on rankers read from the folder.
      const bench = await answerVideoTurn(question.question, turn, async () => AvsdRankers.load(source, files, WASM(), 'page'));
      expect(reply.video).toEqual(bench);
      expect(reply.video?.answeredFrom).toBe('ranker');
      if (reply.video?.answeredFrom !== 'ranker') return;
      expect(reply.video.candidates).toHaveLength(100);
      expect(reply.video.text).toBe(reply.video.candidates[0]!.text);
      expect(reply.video.bankSize).toBe((JSON.parse(readFileSync(join(MODELS_DIR, 'avsd.json'), 'utf8')) as { answers: unknown[] }).answers.length);
      expect(reply.composed.steps).toEqual([]);
      // Without models/avsd the question gets a sentence that says what to restore.
      await expect(
        sharedVideos()
          .rankers(null, true)
          .then(() => 'loaded'),
      ).rejects.toThrow(
        'Questions about videos cannot be answered here: the video answer rankers are not loaded. Restore models/avsd (npm run avsd:train) and reload.',
      );
    } finally {
      server.close();
    }
  }, 180_000);

  it("hear a video's sound sent ahead once, and analyze the video as if they had heard it then", async () => {
    const server = await serveModels();
    try {
      const recordings = loadSpeech();
      let i = 0;
      while (!(generateClip(1, i, 'val').sound.kind === 'speech' && generateClip(1, i, 'val').sound.loud)) i++;
      const input = clipVideoInput(generateClip(1, i, 'val'), recordings);
      const payload = videoPayload(input);
      const ref = { baseUrl: server.baseUrl, files: [...(await new FsPackSource(MODELS_DIR).listFiles())] };
      const runs = vi.spyOn(SpeechDetector.prototype, 'speechProbabilities');
      const service = sharedVideos();
      await service.hear('sound-1', input.audio!, ref, async () => WASM());
      expect(runs).toHaveBeenCalledTimes(1);
      const heardAhead = await service.analyze({ ...payload, soundId: 'sound-1' }, ref, null, async () => WASM());
      expect(runs).toHaveBeenCalledTimes(1);
      // Taken once: the same id again (or none) hears the sound itself.
      const heardThen = await service.analyze({ ...payload, soundId: 'sound-1' }, ref, null, async () => WASM());
      expect(runs).toHaveBeenCalledTimes(2);
      const { timings: _a, ...ahead } = heardAhead;
      const { timings: _b, ...then } = heardThen;
      expect(ahead).toEqual(then);
      expect(Math.max(...ahead.timeline!.speech)).toBeGreaterThan(0.9);
      runs.mockRestore();
    } finally {
      server.close();
    }
  }, 120_000);

  it('stop watching and answering when their call is cancelled, before or during it, and answer the next call', async () => {
    const server = await serveModels();
    try {
      const avsd = { baseUrl: server.baseUrl, files: [...(await new FsPackSource(MODELS_DIR).listFiles())] };
      const videos = sharedVideos();
      const input = clipVideoInput(generateClip(1, 0, 'val'), loadSpeech());
      const video = videoPayload(input);
      const call = (signal: AbortSignal) => ({ signal, progress: () => undefined });
      await expect(videos.analyzeVideo({ video, avsd, forceWasm: true }, call(AbortSignal.abort('cancelled')))).rejects.toBe('cancelled');
      const watching = new AbortController();
      const analyzing = videos.analyzeVideo({ video, avsd, forceWasm: true }, call(watching.signal));
      watching.abort('cancelled');
      await expect(analyzing).rejects.toBe('cancelled');
      const analyzed = await videos.analyzeVideo({ video, avsd, forceWasm: true }, call(new AbortController().signal));
      const turn = askedAbout('v1', {
        question: '',
        earlier: [],
        video: Float32Array.from(analyzed.features.video),
        audio: Float32Array.from(analyzed.features.audio),
      });
      const session = videoSession();
      const ask = (signal: AbortSignal, rankers = () => videos.rankers(avsd, true)) =>
        session.compose([{ elements: [{ kind: 'text', text: 'what is happening in the video?' }] }], { video: { turn, rankers }, signal });
      await expect(ask(AbortSignal.abort('cancelled'))).rejects.toBe('cancelled');
      // Cancelled once the rankers are loaded, between the screening model's run and the full model's.
      const answering = new AbortController();
      const loaded = await videos.rankers(avsd, true);
      const rank = loaded.rank.bind(loaded);
      let runs = 0;
      loaded.rank = async (...args) => {
        const scores = await rank(...args);
        runs++;
        answering.abort('cancelled');
        return scores;
      };
      await expect(ask(answering.signal, async () => loaded)).rejects.toBe('cancelled');
      expect(runs).toBe(1);
      loaded.rank = rank;
      const answered = await ask(new AbortController().signal);
      expect(answered.video?.answeredFrom === 'ranker' && answered.video.candidates).toHaveLength(100);
    } finally {
      server.close();
    }
  }, 120_000);

  it('hear speech with Silero VAD in a speaking clip and none in a beeping one', async () => {
    const speech = await loadSpeechDetector();
    const recordings = loadSpeech();
    const clipOf = (kind: 'speech' | 'beep') => {
      for (let i = 0; ; i++) {
        const clip = generateClip(1, i, 'val');
        if (clip.sound.kind === kind && clip.sound.loud) return clip;
      }
    };
    const speaking = await speech.speechProbabilities(clipAudio(clipOf('speech'), recordings)!);
    const beeping = await speech.speechProbabilities(clipAudio(clipOf('beep'), recordings)!);
    expect(speaking).toHaveLength(125); // 4 s of 32 ms frames
    expect(Math.max(...speaking)).toBeGreaterThan(0.9);
    expect(Math.max(...beeping)).toBeLessThan(0.5);
  }, 60_000);
});

describe('npm run avsd:generate', () => {
  const digests = (dir: string) =>
    Object.fromEntries(
      readdirSync(dir)
        .sort()
        .map((f) => [
          f,
          createHash('sha256')
            .update(readFileSync(join(dir, f)))
            .digest('hex'),
        ]),
    );

  it('writes the same bytes for the same clips, and other clips for another start', () => {
    const a = tempDir();
    const b = tempDir();
    const c = tempDir();
    writeAvsdClips(a, 'test', 3, 0, false);
    writeAvsdClips(b, 'test', 3, 0, false);
    writeAvsdClips(c, 'test', 3, 3, false);
    expect(Object.keys(digests(a))).toContain('test-1-0.png');
    expect(digests(a)).toEqual(digests(b));
    expect(digests(c)['dialogs.json']).not.toBe(digests(a)['dialogs.json']);
    const dialogs = JSON.parse(readFileSync(join(a, 'dialogs.json'), 'utf8')) as { clip: { id: string }; dialog: { answer: string; candidates: string[] }[] }[];
    expect(dialogs.map((d) => d.clip.id)).toEqual(['test-1-0', 'test-1-1', 'test-1-2']);
    for (const d of dialogs) for (const round of d.dialog) expect(round.candidates).toContain(round.answer);
  });
});
