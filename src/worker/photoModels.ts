import { ImageCaptioner } from '../engine/caption/imageCaptioner';
import { ObjectDetector } from '../engine/detection/objectDetector';
import { EngineError, errorMessage } from '../engine/errors';
import type { ExecutionPlan } from '../engine/onnx/executionPlan';
import type { FileProgress } from '../engine/pack/fileSource';
import { nowMs } from '../engine/clock';
import { StoredPackSource } from '../persistence/packStore';
import type { CaptionerRef, CaptionerStatus, DetectorRef, DetectorStatus } from '../protocol/protocol';
import { FetchPackSource } from './fetchPackSource';

/**
 * The photo path's optional models, loaded beside the pack: the object detector and the captioner.
 * Either may be missing or fail to load; that never stops the pack, and the status says why.
 */

/** What a missing detector means and what to do, after "... is missing, so ". */
const DETECTOR_MISSING_ADVICE = 'photos are described by the image encoder alone. Restore models/detector (npm run models:detector) and reload.';

/** What the detector's owner is told while it is in use: its backend changed (a fallback to WASM), and a WebGPU detector to watch for a lost device. */
export interface DetectorWatch {
  backendChanged: (detector: ObjectDetector, status: DetectorStatus) => void;
  deviceLoss: (detector: ObjectDetector) => void;
}

/** The captioning model, or null with a sentence saying why: its failure never stops the pack (photos keep grounded captions). */
export async function loadCaptioner(
  ref: CaptionerRef | null,
  plan: ExecutionPlan,
  onProgress: (p: FileProgress) => void,
): Promise<{ captioner: ImageCaptioner | null; status: CaptionerStatus }> {
  if (!ref) return { captioner: null, status: { state: 'none' } };
  const start = nowMs();
  try {
    const source = ref.stored ? new StoredPackSource(ref.id) : new FetchPackSource(ref.baseUrl);
    const captioner = await ImageCaptioner.load(source, new Set(ref.files), plan, (p) => onProgress({ ...p, file: `${ref.id}/${p.file}` }));
    return { captioner, status: { state: 'ready', id: ref.id, provider: captioner.provider, dtype: captioner.dtype, loadMs: nowMs() - start } };
  } catch (error) {
    console.warn('The captioner could not be loaded:', errorMessage(error));
    return {
      captioner: null,
      status: {
        state: 'unavailable',
        reason: `The captioner ${ref.id} could not be loaded: ${errorMessage(error).replace(/\.$/, '')}. Photos keep their grounded captions.`,
      },
    };
  }
}

/** The object detector, or null with a sentence saying why: its failure never stops the pack. */
export async function loadDetector(
  ref: DetectorRef | null,
  plan: ExecutionPlan,
  onProgress: (p: FileProgress) => void,
  watch: DetectorWatch,
): Promise<{ detector: ObjectDetector | null; status: DetectorStatus }> {
  if (!ref) {
    return {
      detector: null,
      status: { state: 'unavailable', reason: `The object detector is not installed (models/detector/ has no detector.json), so ${DETECTOR_MISSING_ADVICE}` },
    };
  }
  const start = nowMs();
  let detector: ObjectDetector | null = null;
  let loadMs = 0;
  try {
    detector = await ObjectDetector.load(new FetchPackSource(ref.baseUrl, DETECTOR_MISSING_ADVICE), ref.files, plan, {
      // Its files are read now (the pool's fingerprint needs them); its session at the first photo, or by the warm-up after Ready.
      deferred: ['detector'],
      // Named apart from the pack's own onnx/ files in the status area's progress bars.
      onProgress: (p) => onProgress({ ...p, file: `detector/${p.file}` }),
      // Called during the load too (detector still null then): the load's result carries that state.
      onBackendChange: (backend) => {
        if (detector) watch.backendChanged(detector, { state: 'ready', backend, loadMs });
      },
    });
    loadMs = nowMs() - start;
    const loaded = detector;
    if (loaded.backend.provider === 'webgpu') watch.deviceLoss(loaded);
    return { detector: loaded, status: { state: 'ready', backend: loaded.backend, loadMs } };
  } catch (error) {
    console.warn('The object detector could not be loaded:', errorMessage(error));
    // A missing file's message already says what follows and what to do; other failures get that said.
    const reason =
      error instanceof EngineError && error.code === 'pack-file-missing'
        ? errorMessage(error)
        : `The object detector could not be loaded: ${sentence(errorMessage(error))} Until it loads, photos are described by the image encoder alone.`;
    return { detector: null, status: { state: 'unavailable', reason } };
  }
}

/** A message as a sentence: ends with a full stop. */
function sentence(text: string): string {
  return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}
