"""Makes models/test-tiny-clip: a CLIP-format pack with random weights (a test fixture, not a
demo model), plus reference tokenizations, preprocessed crops and embeddings computed here in
PyTorch, which the engine's tests must reproduce.

Run: /usr/bin/python3 models/scripts/make_test_pack.py [--shared ../shared]"""
import json
import os
import shutil
import sys

import numpy as np
import torch
from PIL import Image, ImageDraw

sys.path.insert(0, os.path.dirname(__file__))
from common.clip_fixture import clip_tokenizer_source  # noqa: E402
from clip_preprocess import preprocess, resized_crop  # noqa: E402
from clip_tokenizer import ReferenceTokenizer, write_tokenizer_files  # noqa: E402
from clip_torch import CLIPTextModelWithProjection, CLIPVisionModelWithProjection, export_onnx, init_clip_  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PACK = os.path.join(ROOT, "models", "test-tiny-clip")
SEED = 20231

FIXTURE_TEXTS = [
    "a photo of a cat",
    "Hello there! How was your trip to Lisbon?",
    "I'd love some pasta tonight :)",
    "The concert starts at 8:30 pm, don't be late!!!",
    "Café au lait, s'il vous plaît",
    "🐶 puppies are the best 🎉",
    "   spaces    and\ttabs\nand newlines   ",
    "word " * 100,  # truncated at 77 tokens
]


def config():
    text = dict(model_type="clip_text_model", vocab_size=49408, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                num_attention_heads=2, max_position_embeddings=77, hidden_act="quick_gelu", layer_norm_eps=1e-5,
                bos_token_id=0, eos_token_id=2, pad_token_id=1, projection_dim=16)
    vision = dict(model_type="clip_vision_model", hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                  num_attention_heads=2, image_size=224, patch_size=32, num_channels=3, hidden_act="quick_gelu",
                  layer_norm_eps=1e-5, projection_dim=16)
    return {"_name_or_path": "mmdialog-web/test-tiny-clip", "architectures": ["CLIPModel"], "model_type": "clip",
            "projection_dim": 16, "logit_scale_init_value": 2.6592, "initializer_factor": 1.0,
            "text_config": text, "vision_config": vision, "transformers_version": "4.x (layout only)"}


def fixture_images():
    """Synthetic pictures: a landscape (downscale), a portrait (downscale), a small one (upscale)."""
    rng = np.random.default_rng(SEED)
    images = []
    for name, (w, h) in [("landscape", (320, 240)), ("portrait", (180, 260)), ("small", (100, 80))]:
        yy, xx = np.mgrid[0:h, 0:w]
        base = np.stack([xx * 255 / w, yy * 255 / h, (xx + yy) * 127 / (w + h)], axis=-1)
        base += rng.normal(0, 12, size=base.shape)
        img = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8), "RGB")
        draw = ImageDraw.Draw(img)
        for _ in range(4):
            x0, y0 = int(rng.integers(0, w - 10)), int(rng.integers(0, h - 10))
            draw.ellipse([x0, y0, x0 + int(rng.integers(5, w // 2)), y0 + int(rng.integers(5, h // 2))],
                         fill=tuple(int(c) for c in rng.integers(0, 256, 3)))
        images.append((name, img))
    return images


def main():
    tok_dir = clip_tokenizer_source(ROOT)

    torch.manual_seed(SEED)
    cfg = config()
    text_model = CLIPTextModelWithProjection(cfg)
    vision_model = CLIPVisionModelWithProjection(cfg)
    init_clip_(text_model)
    init_clip_(vision_model)

    if os.path.isdir(PACK):
        shutil.rmtree(PACK)
    os.makedirs(os.path.join(PACK, "fixture"))
    with open(os.path.join(PACK, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(PACK, "manifest.json"), "w") as f:
        json.dump({"name": "test-tiny-clip (random weights)",
                   "description": "Test fixture: a CLIP-format pack with random weights, made by models/scripts/make_test_pack.py. "
                                  "Replies come from real inference but carry no meaning.",
                   "license": "MIT (this project); tokenizer from OpenAI CLIP, MIT"}, f, indent=2)
    shutil.copyfile(os.path.join(tok_dir, "preprocessor_config.json"), os.path.join(PACK, "preprocessor_config.json"))
    write_tokenizer_files(tok_dir, PACK)
    export_onnx(text_model, vision_model, PACK, cfg["vision_config"]["image_size"])

    with open(os.path.join(tok_dir, "preprocessor_config.json")) as f:
        pre_cfg = json.load(f)
    tokenizer = ReferenceTokenizer(tok_dir)
    fixture = {"seed": SEED, "texts": [], "images": []}
    with torch.no_grad():
        for text in FIXTURE_TEXTS:
            ids = tokenizer.encode(text)
            emb = text_model(torch.tensor([ids]), torch.ones(1, len(ids), dtype=torch.int64))[0]
            fixture["texts"].append({"text": text, "input_ids": ids, "text_embeds": emb.tolist()})
        for name, img in fixture_images():
            img.save(os.path.join(PACK, "fixture", f"{name}.png"))
            pixels = preprocess(img, pre_cfg)
            emb = vision_model(torch.from_numpy(pixels)[None])[0]
            fixture["images"].append({"file": f"fixture/{name}.png", "size": list(img.size),
                                      "crop_file": f"fixture/{name}.crop.rgb", "image_embeds": emb.tolist()})
            crop_u8 = np.asarray(resized_crop(img, pre_cfg), dtype=np.uint8)
            crop_u8.tofile(os.path.join(PACK, "fixture", f"{name}.crop.rgb"))
    with open(os.path.join(PACK, "fixture", "reference.json"), "w") as f:
        json.dump(fixture, f, indent=1)
    total = sum(os.path.getsize(os.path.join(PACK, "onnx", n)) for n in os.listdir(os.path.join(PACK, "onnx")))
    print(f"wrote {PACK}: onnx {total / 1e6:.2f} MB, {len(fixture['texts'])} texts, {len(fixture['images'])} images")


if __name__ == "__main__":
    main()
