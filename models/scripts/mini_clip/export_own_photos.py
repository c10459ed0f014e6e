"""Writes our own captioned real photos (own_photos.json, never trained on) as a captioned set, so the
benchmarks measure any pack on them like on any other: <cache>/own-photos/*.jpg and captions.csv (two
COCO-style captions per photo, written for this project). This is the set the recipe's choices are made
on; coco-mini is only ever measured, never chosen on."""
import argparse
import csv
import os
import sys

from PIL import Image

sys.path.insert(0, os.path.dirname(__file__))
import sources_v2  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", required=True, help="the recipe's cache (models/.cache/mini-clip), with the packages unpacked in <cache>/deb")
    args = ap.parse_args()
    out = os.path.join(args.cache, "own-photos")
    os.makedirs(out, exist_ok=True)
    written = skipped = 0
    with open(os.path.join(out, "captions.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["image", "caption"])
        for i, photo in enumerate(sources_v2.own_photos()):
            source = sources_v2.resolve(args.cache, photo["package"], photo["path_in_package"])
            if not os.path.exists(source):
                skipped += 1
                continue
            name = f"{i:03d}.jpg"
            img = Image.open(source).convert("RGB")
            img.thumbnail((640, 640))
            img.save(os.path.join(out, name), quality=92)
            for caption in photo["captions"]:
                writer.writerow([name, caption])
            written += 1
    print(f"wrote {written} own photos to {out} ({skipped} skipped: package not unpacked)")


if __name__ == "__main__":
    main()
