"""Makes models/hub-fixtures/Xenova/clip-vit-base-patch32/: a tiny CLIP with random weights in the
file layout of the hub repo Xenova/clip-vit-base-patch32 (same file names, fp32 / _quantized / _fp16
variants, the real config.json field set with tiny sizes), for tests that download, embed and reply
without the hub. Reference embeddings (PyTorch) go to the sibling folder clip-vit-base-patch32.reference/,
which a fake hub does not serve. Not a pack folder under models/ (no models/<id>/config.json), so the
dev server never lists it.

Run: /usr/bin/python3 models/scripts/make_hub_fixtures.py [--shared ../shared]"""
import copy
import json
import os
import shutil
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(__file__))
from common.clip_fixture import clip_tokenizer_source  # noqa: E402
from clip_preprocess import preprocess  # noqa: E402
from clip_tokenizer import ReferenceTokenizer  # noqa: E402
from clip_torch import CLIPTextModelWithProjection, CLIPVisionModelWithProjection, init_clip_  # noqa: E402
from make_test_pack import fixture_images  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REPO = os.path.join(ROOT, "models", "hub-fixtures", "Xenova", "clip-vit-base-patch32")
REFERENCE = REPO + ".reference"
SEED = 20232
TEXTS = ["a photo of a cat", "Hello there! How was your trip to Lisbon?"]
TINY = {"text": dict(hidden_size=8, intermediate_size=16, num_hidden_layers=2, num_attention_heads=2),
        "vision": dict(hidden_size=16, intermediate_size=32, num_hidden_layers=2, num_attention_heads=2)}
PROJECTION_DIM = 16


def config(real):
    """The real repo's config.json, every key kept, sizes shrunk."""
    cfg = copy.deepcopy(real)
    cfg.pop("_commit_hash", None)
    cfg["projection_dim"] = PROJECTION_DIM
    cfg["transformers_version"] = "4.33.0.dev0"
    for part in ("text", "vision"):
        cfg[f"{part}_config"].update(TINY[part], projection_dim=PROJECTION_DIM)
    return cfg


class TowerExport(torch.nn.Module):
    """One tower of the CLIP model m, with the inputs and outputs of Xenova's file for it."""

    def __init__(self, m):
        super().__init__()
        self.m = m


class TextExport(TowerExport):
    """Xenova's text_model.onnx: input_ids only (causal mask; padding is end-of-text after the pooled token)."""

    def forward(self, input_ids):
        t = self.m.text_model
        n = input_ids.shape[1]
        x = t.embeddings.token_embedding(input_ids) + t.embeddings.position_embedding(torch.arange(n)[None])
        causal = torch.triu(torch.full((n, n), torch.finfo(x.dtype).min), diagonal=1)
        hidden = t.final_layer_norm(t.encoder(x, causal[None, None]))
        pooled = hidden[torch.arange(hidden.shape[0]), input_ids.to(torch.int64).argmax(dim=-1)]
        return self.m.text_projection(pooled), hidden


class VisionExport(TowerExport):
    """Xenova's vision_model.onnx: pixel_values in, image_embeds and last_hidden_state out."""

    def forward(self, pixel_values):
        v = self.m.vision_model
        patches = v.embeddings.patch_embedding(pixel_values).flatten(2).transpose(1, 2)
        cls = v.embeddings.class_embedding.expand(patches.shape[0], 1, -1)
        hidden = v.encoder(v.pre_layrnorm(torch.cat([cls, patches], dim=1) + v.embeddings.position_embedding.weight[None]))
        return self.m.visual_projection(v.post_layernorm(hidden[:, 0])), hidden


def export(module, args, path, inputs, outputs, axes):
    torch.onnx.export(module.eval(), args, path, input_names=inputs, output_names=outputs, dynamic_axes=axes,
                      opset_version=14, do_constant_folding=True)
    model = onnx.load(path)
    model.producer_name, model.producer_version = "make_hub_fixtures", "1"
    onnx.save(model, path)


def quantize_int8(src, dst):
    """Weight-only int8: each large weight is stored as int8 + per-channel scale and restored by
    DequantizeLinear in the graph (plain onnx; the real _quantized files use MatMulInteger instead)."""
    model = onnx.load(src)
    g = model.graph
    consumers = {}
    for node in g.node:
        for k, name in enumerate(node.input):
            consumers.setdefault(name, []).append((node, k))
    keep = []
    for init in g.initializer:
        w = numpy_helper.to_array(init)
        uses = consumers.get(init.name, [])
        if w.dtype != np.float32 or w.ndim < 2 or w.size < 256 or len(uses) != 1:
            keep.append(init)
            continue
        node, k = uses[0]
        if node.op_type == "MatMul" and k == 1:
            axis = 1
        elif node.op_type == "Gemm" and k == 1:
            axis = 0 if any(a.name == "transB" and a.i == 1 for a in node.attribute) else 1
        elif (node.op_type == "Gather" and k == 0) or (node.op_type == "Conv" and k == 1):
            axis = 0
        else:
            keep.append(init)
            continue
        reduce = tuple(i for i in range(w.ndim) if i != axis)
        scale = np.maximum(np.abs(w).max(axis=reduce), 1e-8).astype(np.float32) / 127
        shape = [1] * w.ndim
        shape[axis] = -1
        q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
        keep += [numpy_helper.from_array(q, init.name + "_q"), numpy_helper.from_array(scale, init.name + "_scale"),
                 numpy_helper.from_array(np.zeros_like(scale, dtype=np.int8), init.name + "_zp")]
        g.node.insert(0, helper.make_node("DequantizeLinear", [init.name + "_q", init.name + "_scale", init.name + "_zp"],
                                          [init.name], axis=axis, name=init.name + "_dequantize"))
    del g.initializer[:]
    g.initializer.extend(keep)
    onnx.checker.check_model(model)
    onnx.save(model, dst)


def to_fp16(src, dst, float_inputs):
    """fp16 weights (each cast back to float32 where used) and fp16 float inputs and outputs, as an
    fp16 export's interface; the arithmetic stays float32 because Debian's torch 1.13 cannot trace
    LayerNorm in half on the CPU."""
    model = onnx.load(src)
    g = model.graph
    inits = []
    casts = []
    for init in g.initializer:
        w = numpy_helper.to_array(init)
        if w.dtype == np.float32:
            inits.append(numpy_helper.from_array(w.astype(np.float16), init.name + "_fp16"))
            casts.append(helper.make_node("Cast", [init.name + "_fp16"], [init.name], to=TensorProto.FLOAT))
        else:
            inits.append(init)
    del g.initializer[:]
    g.initializer.extend(inits)
    for inp in g.input:
        if inp.name in float_inputs:
            casts.append(helper.make_node("Cast", [inp.name + "_fp16"], [inp.name], to=TensorProto.FLOAT))
            inp.name += "_fp16"
            inp.type.tensor_type.elem_type = TensorProto.FLOAT16
    tail = []
    for out in g.output:
        for node in g.node:
            node.output[:] = [o + "_fp32" if o == out.name else o for o in node.output]
            node.input[:] = [i + "_fp32" if i == out.name else i for i in node.input]
        tail.append(helper.make_node("Cast", [out.name + "_fp32"], [out.name], to=TensorProto.FLOAT16))
        out.type.tensor_type.elem_type = TensorProto.FLOAT16
    nodes = casts + list(g.node) + tail
    del g.node[:]
    g.node.extend(nodes)
    # The fp16 input keeps its public name: rename the graph input back after the cast took it.
    for inp in g.input:
        if inp.name.endswith("_fp16") and inp.name[:-5] in float_inputs:
            public = inp.name[:-5]
            for node in g.node:
                node.input[:] = [public + "_in" if i == public else i for i in node.input]
                node.output[:] = [public + "_in" if o == public else o for o in node.output]
                node.input[:] = [public if i == inp.name else i for i in node.input]
            inp.name = public
    onnx.checker.check_model(model)
    onnx.save(model, dst)


def main():
    tok_src = clip_tokenizer_source(ROOT)
    with open(os.path.join(tok_src, "config.json")) as f:
        cfg = config(json.load(f))

    torch.manual_seed(SEED)
    text = CLIPTextModelWithProjection(cfg)
    vision = CLIPVisionModelWithProjection(cfg)
    init_clip_(text)
    init_clip_(vision)

    for d in (REPO, REFERENCE):
        shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(REPO, "onnx"))
    os.makedirs(REFERENCE)
    with open(os.path.join(REPO, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
    shutil.copyfile(os.path.join(tok_src, "preprocessor_config.json"), os.path.join(REPO, "preprocessor_config.json"))
    for name in ("vocab.json", "merges.txt"):
        shutil.copyfile(os.path.join(tok_src, name), os.path.join(REPO, name))
    tok_dir = os.path.join(ROOT, "models", "clip-tokenizer")
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copyfile(os.path.join(tok_dir, name), os.path.join(REPO, name))
    special = {"bos_token": "<|startoftext|>", "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>", "unk_token": "<|endoftext|>"}
    with open(os.path.join(REPO, "special_tokens_map.json"), "w") as f:
        json.dump({k: {"content": v, "lstrip": False, "normalized": True, "rstrip": False, "single_word": False} for k, v in special.items()}, f, indent=2)

    onnx_dir = os.path.join(REPO, "onnx")
    ids = torch.tensor([[49406, 320, 1125, 49407, 49407], [49406, 320, 1125, 539, 49407]])
    export(TextExport(text), (ids,), os.path.join(onnx_dir, "text_model.onnx"), ["input_ids"], ["text_embeds", "last_hidden_state"],
           {"input_ids": {0: "batch_size", 1: "sequence_length"}, "text_embeds": {0: "batch_size"},
            "last_hidden_state": {0: "batch_size", 1: "sequence_length"}})
    export(VisionExport(vision), (torch.zeros(2, 3, 224, 224),), os.path.join(onnx_dir, "vision_model.onnx"), ["pixel_values"],
           ["image_embeds", "last_hidden_state"], {"pixel_values": {0: "batch_size"}, "image_embeds": {0: "batch_size"}, "last_hidden_state": {0: "batch_size"}})
    for tower, float_inputs in (("text_model", set()), ("vision_model", {"pixel_values"})):
        src = os.path.join(onnx_dir, f"{tower}.onnx")
        quantize_int8(src, os.path.join(onnx_dir, f"{tower}_quantized.onnx"))
        to_fp16(src, os.path.join(onnx_dir, f"{tower}_fp16.onnx"), float_inputs)

    # References: fp32 weights, and the same model with weights rounded to fp16 (what the _fp16 files hold).
    text16, vision16 = copy.deepcopy(text), copy.deepcopy(vision)
    with torch.no_grad():
        for m in (text16, vision16):
            for p in m.parameters():
                p.copy_(p.half().float())
    tokenizer = ReferenceTokenizer(tok_src)
    with open(os.path.join(REPO, "preprocessor_config.json")) as f:
        pre_cfg = json.load(f)
    ref = {"seed": SEED, "repo": "Xenova/clip-vit-base-patch32", "texts": [], "images": []}
    with torch.no_grad():
        for t in TEXTS:
            ids = tokenizer.encode(t)
            x = torch.tensor([ids])
            ref["texts"].append({"text": t, "input_ids": ids, "fp32": TextExport(text)(x)[0][0].tolist(),
                                 "fp16_weights": TextExport(text16)(x)[0][0].tolist()})
        for name, img in fixture_images()[:2]:
            img.save(os.path.join(REFERENCE, f"{name}.png"))
            px = torch.from_numpy(preprocess(img, pre_cfg))[None]
            ref["images"].append({"file": f"{name}.png", "fp32": VisionExport(vision)(px)[0][0].tolist(),
                                  "fp16_weights": VisionExport(vision16)(px.half().float())[0][0].tolist()})
    with open(os.path.join(REFERENCE, "reference.json"), "w") as f:
        json.dump(ref, f, indent=1)
    total = sum(os.path.getsize(os.path.join(dp, n)) for dp, _, ns in os.walk(REPO) for n in ns)
    print(f"wrote {REPO}: {total / 1e6:.2f} MB; reference in {REFERENCE}")


if __name__ == "__main__":
    main()
