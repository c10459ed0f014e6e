"""Renders the synthetic scenes of pairs.json to image files (<cache>/scenes/) and writes <cache>/images.json,
the list of every training and held-out image, for src/node/data/groundImages.ts: the app's own detector and
grounded captioner must see each image before train.py can teach the image tower what they say.
A scene is drawn once, from its own seed, so the image the detector saw is the image the tower learns from."""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from train import SEED, render_scene  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", required=True)
    args = ap.parse_args()
    path = os.path.join(args.cache, "pairs.json")
    pairs = json.load(open(path))
    out = os.path.join(args.cache, "scenes")
    os.makedirs(out, exist_ok=True)
    drawn = 0
    for i, pair in enumerate(pairs):
        if pair["kind"] != "scene":
            continue
        file = os.path.join(out, f"{pair['id']}.png")
        if not os.path.exists(file):
            render_scene(pair, np.random.default_rng([SEED, i])).save(file)
            drawn += 1
        pair["file"] = file
    with open(path, "w") as f:
        json.dump(pairs, f)
    images = sorted({p["file"] for p in pairs})
    with open(os.path.join(args.cache, "images.json"), "w") as f:
        json.dump(images, f)
    print(f"scenes: {drawn} drawn now; {len(images)} images listed in {args.cache}/images.json")


if __name__ == "__main__":
    main()
