// transformers.js imports `Tensor` from onnxruntime-common, which onnxruntime-web's bundle already holds
// inside it: vite.config.ts points that import here, so the worker keeps one copy of the runtime (and one
// Tensor class for both).
export * from 'onnxruntime-web';
