"""Writes models/.cache/vitb32-shape/: CLIP towers with ViT-B/32's widths, heads, vocabulary and
patching but only LAYERS of its 12 layers, random weights, fp32, with the hub fixture's config and
tokenizer files. For `npm run bench -- pool-rate`, which times it and scales by 12 / LAYERS (the layers
are where the time goes) to estimate embedding the demo pool with the real CLIP on WASM. Not a pack:
models/.cache/ is ignored by git and by the dev server.

Run: /usr/bin/python3 models/scripts/make_vitb32_shape.py [--shared ../shared]"""
import argparse
import json
import os
import shutil
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from clip_torch import CLIPTextModelWithProjection, CLIPVisionModelWithProjection, init_clip_  # noqa: E402
from make_hub_fixtures import REPO, TextExport, VisionExport, export  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "models", ".cache", "vitb32-shape")
LAYERS = 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    args = ap.parse_args()
    with open(os.path.join(args.shared, "data", "clip-tokenizer", "config.json")) as f:
        cfg = json.load(f)
    real_layers = {part: cfg[f"{part}_config"]["num_hidden_layers"] for part in ("text", "vision")}
    for part in ("text", "vision"):
        cfg[f"{part}_config"]["num_hidden_layers"] = LAYERS
    torch.manual_seed(0)
    text, vision = CLIPTextModelWithProjection(cfg), CLIPVisionModelWithProjection(cfg)
    init_clip_(text)
    init_clip_(vision)
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(os.path.join(OUT, "onnx"))
    for name in ("config.json", "preprocessor_config.json", "tokenizer.json", "tokenizer_config.json"):
        shutil.copyfile(os.path.join(REPO, name), os.path.join(OUT, name))
    export(TextExport(text), (torch.tensor([[49406, 320, 1125, 49407]]),), os.path.join(OUT, "onnx", "text_model.onnx"), ["input_ids"],
           ["text_embeds", "last_hidden_state"], {"input_ids": {0: "batch_size", 1: "sequence_length"}})
    export(VisionExport(vision), (torch.zeros(1, 3, 224, 224),), os.path.join(OUT, "onnx", "vision_model.onnx"), ["pixel_values"],
           ["image_embeds", "last_hidden_state"], {"pixel_values": {0: "batch_size"}})
    with open(os.path.join(OUT, "shape.json"), "w") as f:
        json.dump({"layers": LAYERS, "realLayers": real_layers, "of": "openai/clip-vit-base-patch32"}, f, indent=2)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
