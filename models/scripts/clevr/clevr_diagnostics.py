#!/usr/bin/python3
"""Val diagnostics of exported CLEVR-Dialog answerers (issue 41): train_clevr.diagnostics() on the weights
read back from their ONNX files, so shipped models can be examined without their PyTorch state.

Usage: /usr/bin/python3 models/scripts/clevr/clevr_diagnostics.py [--models-dir models/clevr] [--module FILE] MODEL...
  --module  the train_clevr.py that defined the models (e.g. an older one from git show), default this one.
Prints, per model, its accuracy on the parity slice here beside the logged one (a check that the weights
were read back right), then the diagnostics as JSON. HRE models are not supported (ONNX repacks the LSTM).
"""
import argparse
import importlib.util
import json
import os
import sys

import numpy as np
import onnx
import torch
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def from_onnx(tc, kind, path, vocab, val):
    """The Answerer with the ONNX file's weights. Named initializers map by name; a Linear applied to a
    3-D input is exported as a transposed MatMul weight (onnx::MatMul_N, N in the order of use)."""
    model = tc.Answerer(kind, len(vocab["words"]), len(vocab["answers"]), val["objects"].shape[2])
    model.eval()
    inits = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in onnx.load(path).graph.initializer}
    state = model.state_dict()
    order = []
    hooks = [m.register_forward_hook(lambda m, i, o, n=n: order.append(n)) for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)]
    q, h, o, mask, _, _ = next(tc.batches(model, val, np.arange(2), 2))
    with torch.no_grad():
        model(q, h, o, mask)
    for hook in hooks:
        hook.remove()
    unnamed = list(dict.fromkeys(n for n in order if f"{n}.weight" in state and f"{n}.weight" not in inits))
    mats = sorted((k for k in inits if k.startswith("onnx::MatMul_")), key=lambda k: int(k.rsplit("_", 1)[1]))
    if len(mats) != len(unnamed):
        sys.exit(f"{kind}: {len(mats)} unnamed weights in {path}, {len(unnamed)} expected")
    weights = {k: v for k, v in inits.items() if k in state}
    weights.update({f"{n}.weight": w.t() for n, w in zip(unnamed, (inits[k] for k in mats))})
    model.load_state_dict(weights)
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("models", nargs="+")
    parser.add_argument("--models-dir", default=os.path.join(HERE, "..", "..", "clevr"))
    parser.add_argument("--module", default=os.path.join(HERE, "train_clevr.py"))
    parser.add_argument("--data", default=os.path.join(HERE, "..", "..", ".cache", "clevr", "data"))
    args = parser.parse_args()
    torch.set_num_threads(int(os.environ.get("TRAIN_THREADS", "1")))
    defined = load_module(args.module, "defined")
    current = load_module(os.path.join(HERE, "train_clevr.py"), "current")
    vocab = json.load(open(os.path.join(args.data, "vocab.json")))
    val = current.load_clevr_split(args.data, "val")
    log = json.load(open(os.path.join(args.models_dir, "training.json")))
    for kind in args.models:
        model = from_onnx(defined, kind, os.path.join(args.models_dir, "onnx", f"{kind}.onnx"), vocab, val)
        here = current.accuracy(model, val, questions=current.PARITY_QUESTIONS)
        print(f"{kind}: parity slice {100 * here:.2f}% here, {100 * log[kind]['parity_slice']['accuracy']:.2f}% logged")
        print(json.dumps(current.diagnostics(model, val, vocab["templates"])), flush=True)


if __name__ == "__main__":
    main()
