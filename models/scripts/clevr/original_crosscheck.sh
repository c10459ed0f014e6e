#!/usr/bin/env bash
# The cross-check of issue 29: the original CLEVR-Dialog generator (github.com/satwikkottur/clevr-dialog,
# BSD-3), unchanged, writes dialogs about the first SCENES scenes of our test split (the scenes
# `bench -- clevr` measures on; never trained or chosen on), and the shipped answerers are measured on them
# beside their accuracy on our own dialogs about the same scenes.
#
#   bash models/scripts/clevr/original_crosscheck.sh ORIGINAL_REPO [OUT_DIR=models/.cache/clevr/crosscheck] [SCENES=30]
#
# Needs Debian's python3 with absl and tqdm (apt-get install -y python3-absl python3-tqdm). The original's
# beam search takes 15 s to 4 min per scene on a busy 2-core machine. The original never seeds its random
# draws; run_original_generator.py seeds them (and PYTHONHASHSEED is fixed here), so a run repeats.
set -euo pipefail
ORIGINAL=${1:?usage: original_crosscheck.sh ORIGINAL_REPO [OUT_DIR] [SCENES]}
OUT=${2:-models/.cache/clevr/crosscheck}
SCENES=${3:-30}
PYTHON=/usr/bin/python3
[ -f "$ORIGINAL/generate_dataset.py" ] || { echo "$ORIGINAL has no generate_dataset.py; give the path of a checkout of satwikkottur/clevr-dialog." >&2; exit 2; }
"$PYTHON" -c 'import absl, tqdm, numpy' 2>/dev/null || { echo "$PYTHON lacks absl, tqdm or numpy; on Debian: apt-get install -y python3-absl python3-tqdm python3-numpy" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT/original"

# Our test split's scenes and dialogs (CLEVR_SPLITS.test: seed 1, image indices from 200000).
npm run --silent clevr:generate -- --split test --scenes "$SCENES" --seed 1 --first-index 200000 --no-images --out "$OUT/ours"

# The original's dialogs about the same scenes, in its own layout, as its README names the files. They
# depend only on the scenes, so a run for the same scenes is kept (after retraining, only the benches rerun).
if cmp -s "$OUT/ours/CLEVR_test_scenes.json" "$OUT/original/CLEVR_test_scenes.json" && [ -f "$OUT/original/clevr_dialog_test.json" ]; then
  echo "reusing the original's dialogs in $OUT/original (same scenes); delete that folder to run the original again"
else
  rm -f "$OUT/original/clevr_dialog_test.json"
  cp "$OUT/ours/CLEVR_test_scenes.json" "$OUT/original/CLEVR_test_scenes.json"
  PYTHONHASHSEED=0 "$PYTHON" "$HERE/run_original_generator.py" "$ORIGINAL" "$OUT/original/CLEVR_test_scenes.json" \
    "$OUT/original/clevr_dialog_test.json" --num_images "$SCENES" --num_beams 100 --seed 0 | grep -v '^Generating' || true
fi

# Its statistics, and what each kind of round records as its objects beside ours (count-other and exist-other
# count what no earlier round holds, so the grammars agree on them only if every kind of round holds the same).
npm run --silent bench -- clevr-stats --data "$OUT/original" --split test --beside "$OUT/ours"
npm run --silent bench -- clevr --data "$OUT/original" --json "$OUT/original.json"
npm run --silent bench -- clevr --data "$OUT/ours" --json "$OUT/ours.json"

node -e '
const [own, original] = process.argv.slice(1).map((p) => JSON.parse(require("fs").readFileSync(p, "utf8")));
const pct = (t) => (t.total === 0 ? NaN : (100 * t.right) / t.total);
console.log(`\naccuracy in %: our dialogs (${own.questions} questions) beside the original generator\x27s (${original.questions}), same scenes`);
console.log(`${"model".padEnd(12)}${"ours".padStart(8)}${"original".padStart(10)}${"diff".padStart(8)}`);
for (const model of Object.keys(own.results)) {
  const a = pct(own.results[model].overall), b = pct(original.results[model].overall);
  console.log(`${model.padEnd(12)}${a.toFixed(1).padStart(8)}${b.toFixed(1).padStart(10)}${(b - a).toFixed(1).padStart(8)}`);
}' "$OUT/ours.json" "$OUT/original.json"

