/**
 * Speech presence over time: Silero VAD v5 (the ONNX model @ricky0123/vad-web ships, MIT from
 * snakers4/silero-vad, copied into models/avsd: see its SOURCE.md) on the app's own ModelSessions, so it gets the same loading, messages and
 * WASM fallback as every model. vad-web's own Silero class is tied to its real-time frame processor
 * and its own onnxruntime import, so this reimplements its 30-line run loop: 512-sample frames with
 * the 64 samples before each prepended, and the recurrent state carried from frame to frame.
 */
import { type ExecutionPlan, wasmPlanBecause } from '../onnx/executionPlan';
import { ModelSessions, type SessionsOptions, floatOutput } from '../onnx/modelSessions';
import { ort } from '../onnx/ortSessions';
import type { PackFileSource } from '../pack/fileSource';
import { VAD_FRAME } from './audioFeatures';
import { VAD_MODEL_FILE } from './avsdModels';
import { AUDIO_SAMPLE_RATE } from './videoClips';

const CONTEXT = 64;
export { VAD_MODEL_FILE };

export class SpeechDetector {
  private constructor(private readonly sessions: ModelSessions<'vad'>) {}

  /**
   * Always on WASM: the model runs once per 32 ms frame with a state of 256 floats, where a GPU
   * round trip per frame costs more than the whole computation.
   */
  static async load(source: PackFileSource, files: ReadonlySet<string>, plan: ExecutionPlan, options: SessionsOptions<'vad'>): Promise<SpeechDetector> {
    const wasm = plan.provider === 'wasm' ? plan : wasmPlanBecause(plan, 'WASM: the voice-activity model runs frame by frame, faster on the CPU');
    return new SpeechDetector(
      await ModelSessions.load(
        source,
        files,
        [{ key: 'vad', file: VAD_MODEL_FILE, label: 'voice-activity model (Silero VAD)' }],
        { ...wasm, dtypes: ['fp32'] },
        options,
      ),
    );
  }

  /** Silero VAD's speech probability for each whole 512-sample frame of 16 kHz audio. */
  async speechProbabilities(samples: Float32Array): Promise<number[]> {
    const frames = Math.floor(samples.length / VAD_FRAME);
    const probabilities: number[] = [];
    let state: ort.Tensor = new ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
    const rate = new ort.Tensor('int64', BigInt64Array.from([BigInt(AUDIO_SAMPLE_RATE)]), []);
    for (let f = 0; f < frames; f++) {
      const input = new Float32Array(CONTEXT + VAD_FRAME);
      const start = f * VAD_FRAME;
      input.set(samples.subarray(Math.max(0, start - CONTEXT), start), CONTEXT - Math.min(CONTEXT, start));
      input.set(samples.subarray(start, start + VAD_FRAME), CONTEXT);
      const current = state;
      const out = await this.sessions.run('vad', () => ({ input: new ort.Tensor('float32', input, [1, input.length]), state: current, sr: rate }));
      probabilities.push(floatOutput(out, 'output', 'the voice-activity model')[0]!);
      const next = out['stateN'];
      if (!next) throw new Error('The voice-activity model gave no state; the file may be another model.');
      state = next;
    }
    return probabilities;
  }

  release(): Promise<void> {
    return this.sessions.release();
  }
}
