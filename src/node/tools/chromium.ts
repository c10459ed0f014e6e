/** The Chromium the e2e tests and the browser benchmarks drive: Debian's, never a downloaded one. */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Flags for a quiet headless Chromium on a machine with no network but loopback. */
export const BASE_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/**
 * Added for the e2e tests, never for benchmarks: V8 runs WebAssembly on its baseline compiler
 * (Liftoff) alone. Otherwise every fresh test context recompiles the hot functions of onnxruntime's
 * 28 MB module with TurboFan. Opening the test pack's page to Ready took 10.5 CPU-seconds with it and
 * 5.3 without (with a first reply: 14 and 6); mini-clip's, 21 and 13.5. The code and its results are
 * the same; kernels run slower, by 0.1 to 0.4 s a turn on mini-clip.
 */
export const TEST_ARGS = ['--js-flags=--liftoff-only'];

/** A real WebGPU adapter on the CPU (SwiftShader): slow, but exact. */
export const WEBGPU_ARGS = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--enable-features=Vulkan'];
