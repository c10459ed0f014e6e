"""Writes mini-clip's held-out split as files (<cache>/heldout/*.png + captions.csv, every caption of each
image) so `npm run bench -- retrieval` can measure the exported pack on it, like any captioned set."""
import argparse
import csv
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from train import SEED, make_view  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", required=True)
    args = ap.parse_args()
    out = os.path.join(args.cache, "heldout")
    os.makedirs(out, exist_ok=True)
    held = [p for p in json.load(open(os.path.join(args.cache, "pairs.json"))) if p["split"] == "heldout"]
    rng = np.random.default_rng(SEED)
    with open(os.path.join(out, "captions.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["image", "caption"])
        for i, pair in enumerate(held):
            name = f"{i:04d}.png"
            img = make_view(pair, rng, canonical=True).convert("RGB")
            img.thumbnail((448, 448))
            img.save(os.path.join(out, name))
            for caption in pair["captions"][:5]:
                writer.writerow([name, caption])
    print(f"wrote {len(held)} held-out images to {out}")


if __name__ == "__main__":
    main()
