"""Makes models/hub-fixtures/Xenova/clip-vit-base-patch32: a stand-in for the real repo that the fake
hub (src/node/fakeHub.ts) serves under that name, so the page's download, embed and reply path runs on
the layout it will meet on the hub, without the network.

It has the real repo's file names and config fields, and every variant the page may pick:
  onnx/{text,vision}_model.onnx             fp32: test-tiny-clip's towers (random weights, 16-d)
  onnx/{text,vision}_model_quantized.onnx   q8: each large weight stored int8 (per-tensor symmetric
                                            scale) behind a DequantizeLinear, computed in float32
  onnx/{text,vision}_model_fp16.onnx        fp16: each weight stored float16 behind a Cast to float32
The real exports quantize differently (dynamic int8 MatMulInteger; fp16 throughout); these keep
float32 inputs and outputs, which is what the engine reads from both. Tiny weights (about 6 MB in all).

Run: /usr/bin/python3 models/scripts/make_hub_fixtures.py
"""
import json
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TINY = os.path.join(ROOT, "models", "test-tiny-clip")
OUT = os.path.join(ROOT, "models", "hub-fixtures", "Xenova", "clip-vit-base-patch32")
MIN_WEIGHT = 1024  # smaller tensors (biases, norms) stay float32, as in the real quantized files


def weight_only(src, dst, kind):
    model = onnx.load(src)
    graph = model.graph
    kept, nodes = [], []
    for init in graph.initializer:
        w = numpy_helper.to_array(init)
        if init.data_type != TensorProto.FLOAT or w.size < MIN_WEIGHT:
            kept.append(init)
            continue
        if kind == "q8":
            scale = np.float32(max(float(np.abs(w).max()), 1e-8) / 127.0)
            q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
            kept += [numpy_helper.from_array(q, init.name + "_q"), numpy_helper.from_array(np.array(scale, np.float32), init.name + "_scale"),
                     numpy_helper.from_array(np.array(0, np.int8), init.name + "_zero")]
            nodes.append(helper.make_node("DequantizeLinear", [init.name + "_q", init.name + "_scale", init.name + "_zero"], [init.name]))
        else:
            kept.append(numpy_helper.from_array(w.astype(np.float16), init.name + "_f16"))
            nodes.append(helper.make_node("Cast", [init.name + "_f16"], [init.name], to=TensorProto.FLOAT))
    del graph.initializer[:]
    graph.initializer.extend(kept)
    rest = list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes + rest)
    onnx.checker.check_model(model)
    onnx.save(model, dst)


def main():
    if os.path.exists(OUT):
        shutil.rmtree(OUT)
    os.makedirs(os.path.join(OUT, "onnx"))
    config = json.load(open(os.path.join(TINY, "config.json")))
    # The real config's field set (openai/clip-vit-base-patch32 as Xenova ships it), with tiny sizes.
    config.update({"_name_or_path": "openai/clip-vit-base-patch32", "torch_dtype": "float32", "transformers_version": "4.33.0.dev0"})
    json.dump(config, open(os.path.join(OUT, "config.json"), "w"), indent=2)
    for name in ["preprocessor_config.json", "tokenizer.json", "tokenizer_config.json"]:
        shutil.copyfile(os.path.join(TINY, name), os.path.join(OUT, name))
    tokenizer = json.load(open(os.path.join(TINY, "tokenizer.json")))
    json.dump(tokenizer["model"]["vocab"], open(os.path.join(OUT, "vocab.json"), "w"), ensure_ascii=False)
    with open(os.path.join(OUT, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "\n".join(m if isinstance(m, str) else " ".join(m) for m in tokenizer["model"]["merges"]) + "\n")
    special = {"bos_token": "<|startoftext|>", "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>", "unk_token": "<|endoftext|>"}
    json.dump(special, open(os.path.join(OUT, "special_tokens_map.json"), "w"), indent=2)
    for tower in ["text_model", "vision_model"]:
        src = os.path.join(TINY, "onnx", f"{tower}.onnx")
        shutil.copyfile(src, os.path.join(OUT, "onnx", f"{tower}.onnx"))
        weight_only(src, os.path.join(OUT, "onnx", f"{tower}_quantized.onnx"), "q8")
        weight_only(src, os.path.join(OUT, "onnx", f"{tower}_fp16.onnx"), "fp16")
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(OUT) for f in fs)
    print(f"wrote {OUT}: {total / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
