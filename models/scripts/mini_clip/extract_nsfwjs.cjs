// Turns the MobileNetV2 model that nsfwjs ships as base64 inside JS files back into TF.js
// model.json + .bin shards, which models/scripts/mobilenet_tfjs.py reads.
// Usage: node extract_nsfwjs.cjs <nsfwjs package dir> <out dir>
const fs = require('fs');
const path = require('path');
const [pkg, out] = process.argv.slice(2).map((p) => path.resolve(p));
const dir = path.join(pkg, 'dist', 'models', 'mobilenet_v2');
fs.mkdirSync(out, { recursive: true });
const model = require(path.join(dir, 'model.min.js'));
for (const shard of fs.readdirSync(dir).filter((f) => f.startsWith('group')).sort()) {
  fs.writeFileSync(path.join(out, shard.replace('.min.js', '.bin')), Buffer.from(require(path.join(dir, shard)), 'base64'));
}
for (const group of model.weightsManifest) group.paths = group.paths.map((p) => p.replace(/(\.min\.js)?$/, '').replace(/\.bin$/, '') + '.bin');
fs.writeFileSync(path.join(out, 'model.json'), JSON.stringify(model));
console.log(`nsfwjs mobilenet_v2 -> ${out}`);
