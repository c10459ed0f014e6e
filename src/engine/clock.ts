// performance.now() exists in browsers, workers and Node; the engine is compiled without DOM or
// Node types, so it is declared here once.
declare const performance: { now(): number };

export function nowMs(): number {
  return performance.now();
}
