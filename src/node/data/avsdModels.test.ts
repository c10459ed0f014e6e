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
import { answerFromBank } from '../../engine/video/videoAnswer';
import { VideoService } from '../../worker/videoService';
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

/** The worker's video service as model.worker.ts makes it, on WASM and without a pack's photo path. */
const videoService = () =>
  new VideoService(
    async () => WASM(),
    () => ({ analyzer: null, photoCheck: null }),
  );

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

  it("answer a question in the worker (VideoService, the files fetched as the page fetches them) exactly as the engine's one path does", async () => {
    const server = await serveModels();
    try {
      const source = new FsPackSource(MODELS_DIR);
      const files = [...(await source.listFiles())];
      const records = generateAvsdSplit('val', trainAnswerBank(), 1);
      const [features] = await clipFeatures(records, await loadSpeechDetector());
      const rounds = records[0]!.dialog.rounds;
      // As the page sends them: plain arrays (the worker rounds them when it analyzes a video).
      const sent = {
        video: Array.from(features!.video, (v) => Math.round(v * 1000) / 1000),
        audio: Array.from(features!.audio, (v) => Math.round(v * 1000) / 1000),
      };
      const params = {
        avsd: { baseUrl: server.baseUrl, files },
        features: sent,
        earlier: rounds.slice(0, 1),
        question: rounds[1]!.question,
      };
      const viaWorker = await videoService().answer(params, async () => WASM());
      const direct = await answerFromBank(await AvsdRankers.load(source, files, WASM(), 'page'), {
        question: params.question,
        earlier: params.earlier,
        video: Float32Array.from(sent.video),
        audio: Float32Array.from(sent.audio),
      });
      expect(viaWorker).toEqual(direct);
      expect(viaWorker.candidates).toHaveLength(100);
      expect(viaWorker.answer).toBe(viaWorker.candidates[0]!.text);
      expect(viaWorker.bankSize).toBe((JSON.parse(readFileSync(join(MODELS_DIR, 'avsd.json'), 'utf8')) as { answers: unknown[] }).answers.length);
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
      const service = videoService();
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
      const service = videoService();
      const input = clipVideoInput(generateClip(1, 0, 'val'), loadSpeech());
      const video = videoPayload(input);
      const call = (signal: AbortSignal) => ({ signal, progress: () => undefined });
      await expect(service.analyzeVideo({ video, avsd, forceWasm: true }, call(AbortSignal.abort('cancelled')))).rejects.toBe('cancelled');
      const watching = new AbortController();
      const analyzing = service.analyzeVideo({ video, avsd, forceWasm: true }, call(watching.signal));
      watching.abort('cancelled');
      await expect(analyzing).rejects.toBe('cancelled');
      const analyzed = await service.analyzeVideo({ video, avsd, forceWasm: true }, call(new AbortController().signal));
      const question = { avsd, features: analyzed.features, earlier: [], question: 'what is happening in the video?', forceWasm: true };
      await expect(service.answerVideo(question, call(AbortSignal.abort('cancelled')))).rejects.toBe('cancelled');
      const answering = new AbortController();
      const answer = service.answerVideo(question, call(answering.signal));
      answering.abort('cancelled');
      await expect(answer).rejects.toBe('cancelled');
      expect((await service.answerVideo(question, call(new AbortController().signal))).candidates).toHaveLength(100);
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
