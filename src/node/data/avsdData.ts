/**
 * npm run avsd:data [-- --out models/.cache/avsd/data] [--train-clips 1500]
 *
 * Writes the generated AVSD splits (engine/video/avsdDataset.ts) as the arrays the PyTorch recipe
 * trains on. The clips go through the engine's own analyzeVideo (the worker's path: frames sampled as
 * the page samples them, Silero VAD, the audio and video features) and avsdInputs.ts encodes the text.
 * Per split: <split>.<name>.<i32|f32> flat arrays and <split>.json with their shapes; vocab.json holds
 * the words and the answer bank (from the train split).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chooseExecutionPlan } from '../../engine/onnx/executionPlan';
import { AUDIO_FEATURES } from '../../engine/video/audioFeatures';
import {
  ANSWER_TOKENS,
  HISTORY_ROUNDS,
  QUESTION_TOKENS,
  ROUND_TOKENS,
  type WordVocabulary,
  buildWordVocabulary,
  textInputs,
} from '../../engine/video/avsdInputs';
import { AVSD_SPLITS, type AvsdRecord, type AvsdSplit, generateAvsdSplit, trainAnswerBank } from '../../engine/video/avsdDataset';
import { SpeechDetector } from '../../engine/video/speechDetector';
import { analyzeVideo } from '../../engine/video/videoAnalyzer';
import { CANDIDATES_PER_QUESTION, QUESTION_KINDS } from '../../engine/video/videoDialogs';
import { VIDEO_FEATURES } from '../../engine/video/videoFeatures';
import { clipVideoInput, loadSpeech } from './avsdMedia';
import { integerOption, parseCommandLine, runCommand } from '../tools/cliArgs';
import { FsPackSource } from '../tools/fsPackSource';
import { ProgressLine } from '../tools/progressLine';

export const AVSD_DATA_USAGE = 'npm run avsd:data -- [--out models/.cache/avsd/data] [--train-clips 1500]';
export const AVSD_MODELS_DIR = join('models', 'avsd');

export async function loadSpeechDetector(modelsDir = AVSD_MODELS_DIR): Promise<SpeechDetector> {
  const plan = chooseExecutionPlan({ webgpuAdapter: false, shaderF16: false, crossOriginIsolated: false, hardwareConcurrency: 1, forceWasm: true });
  return SpeechDetector.load(new FsPackSource(modelsDir), new Set(['onnx/silero_vad.onnx']), plan, {
    missingAdvice: `restore ${modelsDir}/onnx/silero_vad.onnx from git (models/avsd/SOURCE.md says where it comes from).`,
  });
}

/** Each clip's video and audio features, through the worker's analyzeVideo (no detector: the shapes are not COCO objects). */
export async function clipFeatures(
  records: readonly AvsdRecord[],
  speech: SpeechDetector,
  onClip?: (done: number) => void,
): Promise<{ video: Float32Array; audio: Float32Array }[]> {
  const recordings = loadSpeech();
  const out: { video: Float32Array; audio: Float32Array }[] = [];
  for (const record of records) {
    const analysis = await analyzeVideo(clipVideoInput(record.clip, recordings), { photos: null, speech });
    out.push({ video: analysis.video, audio: analysis.audio });
    onClip?.(out.length);
  }
  return out;
}

function writeSplit(
  dir: string,
  name: string,
  records: readonly AvsdRecord[],
  features: readonly { video: Float32Array; audio: Float32Array }[],
  vocab: WordVocabulary,
): number {
  const count = records.reduce((n, r) => n + r.dialog.rounds.length, 0);
  const question = new Int32Array(count * QUESTION_TOKENS);
  const history = new Int32Array(count * HISTORY_ROUNDS * ROUND_TOKENS);
  const candidates = new Int32Array(count * CANDIDATES_PER_QUESTION * ANSWER_TOKENS);
  const label = new Int32Array(count);
  const clip = new Int32Array(count);
  const kind = new Int32Array(count);
  const video = new Float32Array(records.length * VIDEO_FEATURES);
  const audio = new Float32Array(records.length * AUDIO_FEATURES);
  let k = 0;
  records.forEach((record, c) => {
    video.set(features[c]!.video, c * VIDEO_FEATURES);
    audio.set(features[c]!.audio, c * AUDIO_FEATURES);
    record.dialog.rounds.forEach((round, n) => {
      const inputs = textInputs(round.question, record.dialog.rounds.slice(0, n), record.candidates[n]!, vocab);
      question.set(inputs.question, k * QUESTION_TOKENS);
      history.set(inputs.history, k * HISTORY_ROUNDS * ROUND_TOKENS);
      candidates.set(inputs.candidates, k * CANDIDATES_PER_QUESTION * ANSWER_TOKENS);
      label[k] = record.candidates[n]!.indexOf(round.answer);
      clip[k] = c;
      kind[k] = QUESTION_KINDS.indexOf(round.kind);
      k++;
    });
  });
  const arrays = { question, history, candidates, label, clip, kind, video, audio };
  const shapes: Record<string, number[]> = {
    question: [count, QUESTION_TOKENS],
    history: [count, HISTORY_ROUNDS, ROUND_TOKENS],
    candidates: [count, CANDIDATES_PER_QUESTION, ANSWER_TOKENS],
    label: [count],
    clip: [count],
    kind: [count],
    video: [records.length, VIDEO_FEATURES],
    audio: [records.length, AUDIO_FEATURES],
  };
  for (const [key, array] of Object.entries(arrays))
    writeFileSync(join(dir, `${name}.${key}.${array instanceof Float32Array ? 'f32' : 'i32'}`), new Uint8Array(array.buffer));
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify({ count, clips: records.length, shapes }, null, 1)}\n`);
  return count;
}

export async function writeAvsdData(out: string, trainClips: number = AVSD_SPLITS.train.clips): Promise<Record<string, number>> {
  mkdirSync(out, { recursive: true });
  const bank = trainAnswerBank();
  const speech = await loadSpeechDetector();
  const counts: Record<string, number> = {};
  let vocab: WordVocabulary | null = null;
  for (const split of ['train', 'val', 'test'] as AvsdSplit[]) {
    const records = generateAvsdSplit(split, bank, split === 'train' ? trainClips : AVSD_SPLITS[split].clips);
    vocab ??= buildWordVocabulary(records.map((r) => r.dialog));
    const progress = new ProgressLine();
    const features = await clipFeatures(records, speech, (done) => progress.update(`avsd:data ${split}: clips analyzed`, done, records.length));
    progress.end();
    counts[split] = writeSplit(out, split, records, features, vocab);
  }
  writeFileSync(
    join(out, 'vocab.json'),
    `${JSON.stringify({ words: vocab!.words, answers: bank.all, kinds: QUESTION_KINDS, splits: AVSD_SPLITS }, null, 1)}\n`,
  );
  return counts;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runCommand('avsd:data', async () => {
    const values = parseCommandLine(
      process.argv.slice(2),
      {
        out: { type: 'string', default: join('models', '.cache', 'avsd', 'data') },
        'train-clips': { type: 'string', default: String(AVSD_SPLITS.train.clips) },
      },
      AVSD_DATA_USAGE,
    );
    const counts = await writeAvsdData(values.out, integerOption(values['train-clips'], 'train-clips', AVSD_DATA_USAGE));
    console.log(
      `wrote ${Object.entries(counts)
        .map(([n, c]) => `${n} ${c} questions`)
        .join(', ')} to ${values.out}`,
    );
  });
}
