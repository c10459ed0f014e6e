/** The AVSD answer rankers the recipe trains (no onnxruntime here, so the page can name them). */
/** The input sets of the AVSD paper's ablation (Table 3), plus Q+DH+A: one model each. */
export const AVSD_MODELS = [
  { id: 'q', name: 'Q' },
  { id: 'q-dh', name: 'Q+DH' },
  { id: 'q-dh-v', name: 'Q+DH+V' },
  { id: 'q-dh-a', name: 'Q+DH+A' },
  { id: 'q-dh-v-a', name: 'Q+DH+V+A' },
] as const;
export type AvsdModelId = (typeof AVSD_MODELS)[number]['id'];
export const AVSD_MODEL_IDS: readonly AvsdModelId[] = AVSD_MODELS.map((m) => m.id);

export function avsdModelName(id: AvsdModelId): string {
  return AVSD_MODELS.find((m) => m.id === id)!.name;
}

/** The folder's config (words, answer bank, models, default), and Silero VAD's file (onnx/<name>.onnx). */
export const AVSD_CONFIG_FILE = 'avsd.json';
export const VAD_MODEL_FILE = 'silero_vad';

/** The model that picks a question's 100 candidates from the answer bank in the page: text only, so it can screen before the video is read. */
export const SCREENING_MODEL: AvsdModelId = 'q-dh';

/** The rankers the page runs: the screening model and the default (avsd.json "default"); the others are for the benchmark's ablation. */
export function pageModels(defaultModel: AvsdModelId): AvsdModelId[] {
  return [...new Set<AvsdModelId>([SCREENING_MODEL, defaultModel])];
}
