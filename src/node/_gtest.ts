import { generateScene } from '../engine/clevr/scene';
import { generateDialogs } from '../engine/clevr/generateDialogs';
const s = generateScene(7, 2);
console.log(s.objects.map((o, i) => `${i}: ${o.size} ${o.color} ${o.material} ${o.shape}`).join('\n'));
const t0 = performance.now();
const rec = generateDialogs(s, 1);
console.log('ms', (performance.now() - t0).toFixed(0));
for (const d of rec.dialogs.slice(0, 3)) {
  console.log('\nC:', d.caption, d.caption_template, d.caption_objects);
  for (const r of d.dialog) console.log(`  Q: ${r.question}  A: ${r.answer}  [${r.template} dist=${r.coref_distance} ref=${r.referents} ans=${r.answer_objects}]`);
}
