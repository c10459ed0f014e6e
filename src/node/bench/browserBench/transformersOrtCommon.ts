// transformers.js imports `Tensor` from onnxruntime-common: in the benchmark page that is the copy
// inside its own onnxruntime-web/webgpu (as the app's worker does with its one copy), so its tensors
// are the ones its sessions accept.
export * from 'onnxruntime-web/webgpu';
