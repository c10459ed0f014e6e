import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The package's model as TF.js reads it: model.json (topology and weights manifest) and the weights' bytes. */
export function nsfwjsModelFiles(): {
  modelJson: { modelTopology: unknown; weightsManifest: { paths?: string[]; weights: unknown[] }[] };
  weights: Uint8Array;
} {
  const require = createRequire(import.meta.url);
  // The package ships the model as UMD modules: the first exports model.json, the second the weights as base64.
  // Its "exports" do not list them, so they are found beside its entry point (dist/cjs/index.js).
  const models = join(dirname(require.resolve('nsfwjs')), '..', 'models', 'mobilenet_v2');
  const modelJson = require(join(models, 'model.min.js')) as ReturnType<typeof nsfwjsModelFiles>['modelJson'];
  const shard = require(join(models, 'group1-shard1of1.min.js')) as string;
  return { modelJson, weights: new Uint8Array(Buffer.from(shard, 'base64')) };
}
