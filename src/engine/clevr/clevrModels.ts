/**
 * The CLEVR-Dialog answerers, one registry: what each is called, whether it is a baseline computed here
 * or an ONNX model of models/clevr/, what it reads, and the paper's accuracy for it (Kottur et al. 2019,
 * Table 2; the -Q, -QI and -QH figures as issue 29 quotes the paper).
 *
 * Every model that reads the image has a count head (train_clevr.py): its count answers come from a sum
 * of per-object scores. The -pixels model reads the rendered picture through a small CNN instead of the
 * scene's object features, so it has no perfect perception; the paper has no such row.
 */
export const CLEVR_MODELS = [
  { id: 'random', name: 'Random', kind: 'baseline', paper: 3.4, inputs: 'none' },
  { id: 'random-q', name: 'Random-Q', kind: 'baseline', paper: 33.4, inputs: 'question type' },
  { id: 'lf-q', name: 'LF-Q', kind: 'onnx', paper: 40.3, inputs: 'question' },
  { id: 'lf-qi', name: 'LF-QI', kind: 'onnx', paper: 50.4, inputs: 'question, image' },
  { id: 'lf-qh', name: 'LF-QH', kind: 'onnx', paper: 44.1, inputs: 'question, history' },
  { id: 'lf-qih', name: 'LF-QIH', kind: 'onnx', paper: 55.9, inputs: 'question, image, history' },
  { id: 'hre-qh', name: 'HRE-QH', kind: 'onnx', paper: 45.9, inputs: 'question, history' },
  { id: 'hre-qih', name: 'HRE-QIH', kind: 'onnx', paper: 63.3, inputs: 'question, image, history' },
  { id: 'mn-qh', name: 'MN-QH', kind: 'onnx', paper: 44.2, inputs: 'question, history' },
  { id: 'mn-qih', name: 'MN-QIH', kind: 'onnx', paper: 59.6, inputs: 'question, image, history' },
  { id: 'coref-qih', name: 'Coref-MN-QIH (ours)', kind: 'onnx', paper: null, inputs: 'question, image, history; coreference supervised' },
  { id: 'lf-qi-pixels', name: 'LF-QI pixels (ours)', kind: 'onnx', paper: null, inputs: 'question, rendered picture (CNN)' },
] as const;

export type ClevrModelId = (typeof CLEVR_MODELS)[number]['id'];
export type ClevrOnnxModelId = Extract<(typeof CLEVR_MODELS)[number], { kind: 'onnx' }>['id'];
export const CLEVR_ONNX_MODELS = CLEVR_MODELS.filter((m): m is Extract<(typeof CLEVR_MODELS)[number], { kind: 'onnx' }> => m.kind === 'onnx').map((m) => m.id);

/** The paper's other rows, for scale beside ours (neural module networks, not built here). */
export const CLEVR_PAPER_ONLY = [
  { name: 'NMN', paper: 56.6 },
  { name: 'CorefNMN', paper: 68.0 },
] as const;

export function clevrModelName(id: ClevrModelId): string {
  return CLEVR_MODELS.find((m) => m.id === id)!.name;
}

/** The baselines' draws are seeded, so their figures repeat. */
export const CLEVR_BASELINE_SEED = 5;
