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

/** A real WebGPU adapter on the CPU (SwiftShader): slow, but exact. */
export const WEBGPU_ARGS = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--enable-features=Vulkan'];
