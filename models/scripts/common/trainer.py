"""What the trainers share. Every trainer (heads/train_heads.py, chat/train_chat_encoder.py, avsd/train_avsd.py,
clevr/train_clevr.py) takes its common flags from trainer_parser, keeps each part's best epoch on val and
stops early with BestEpochs, and exports with export_onnx (checked by onnx's checker). The answer-ranker
trainers (AVSD, CLEVR-Dialog) also share their command line, the arrays `npm run <x>:data` writes, the
training log and the config the engine reads (<x>.json)."""
import argparse
import json
import math
import os
import time

import numpy as np
import onnx
import torch


def trainer_parser(out, epochs, patience, batch):
    """The flags every trainer has, with its own defaults: --out, --epochs (at most), --patience (epochs in
    which no part got better before stopping) and --batch. A trainer adds its own flags to the parser."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=out)
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--patience", type=int, default=patience, help="epochs without a better part on val before stopping")
    parser.add_argument("--batch", type=int, default=batch)
    return parser


def trainer_arguments(data, out, models, epochs, patience, batch, extra=()):
    """An answer-ranker trainer's command line: trainer_parser's flags, --data, --models (comma-separated;
    '' trains nothing), --seed, and its own string options `extra` as (flag, default) pairs."""
    parser = trainer_parser(out, epochs, patience, batch)
    for flag, default in extra:
        parser.add_argument(flag, default=default)
    parser.add_argument("--data", default=data)
    parser.add_argument("--models", default=",".join(models))
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def chosen_models(models):
    return [m for m in models.split(",") if m]


def seeded(seed):
    """Seeds torch for one model and returns the numpy generator that orders its batches."""
    torch.manual_seed(seed)
    return np.random.default_rng(seed)


def load_split(data_dir, name, float_keys):
    """One split's arrays: <name>.json gives each array's shape; float_keys are .f32 files, the rest .i32."""
    meta = json.load(open(os.path.join(data_dir, f"{name}.json")))
    out = {}
    for key, shape in meta["shapes"].items():
        is_float = key in float_keys
        dtype = np.float32 if is_float else np.int32
        out[key] = np.fromfile(os.path.join(data_dir, f"{name}.{key}.{'f32' if is_float else 'i32'}"), dtype=dtype).reshape(shape)
    return out


def start_training(data_dir, out):
    """Two torch threads (the 2-core machine; TRAIN_THREADS sets another number), the vocabulary, out/onnx made, and the training log so far
    (out/training.json: models not trained this run keep their entries)."""
    # TRAIN_THREADS=1 lets two trainers share the two cores (one model list each) without oversubscribing.
    torch.set_num_threads(int(os.environ.get("TRAIN_THREADS", "2")))
    vocab = json.load(open(os.path.join(data_dir, "vocab.json")))
    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
    log_path = os.path.join(out, "training.json")
    log = json.load(open(log_path)) if os.path.exists(log_path) else {}
    return vocab, log_path, log


class BestEpochs:
    """Early stopping for a model of one or more parts, each kept at its own best epoch on val (the response
    heads keep the intent head and each ranker apart; a one-part model is the usual case). `parts` maps a
    part's name to its modules. consider() takes an epoch's val scores, keeping a copy of the weights of
    each part that beat its best (strictly); should_stop() is true once `patience` epochs have passed
    without any part getting better; restore() loads each part's best weights."""

    def __init__(self, parts, patience):
        self.parts = parts
        self.patience = patience
        self.best = {name: (-math.inf, None, None) for name in parts}

    def consider(self, epoch, scores):
        for name, score in scores.items():
            if score > self.best[name][0]:
                self.best[name] = (score, [{k: v.clone() for k, v in m.state_dict().items()} for m in self.parts[name]], epoch)

    def should_stop(self, epoch):
        return epoch - max(b[2] for b in self.best.values()) >= self.patience

    def score(self, name):
        return self.best[name][0]

    def epochs(self):
        """Each part's best epoch."""
        return {name: b[2] for name, b in self.best.items()}

    def restore(self):
        for name, (_, states, _) in self.best.items():
            for module, state in zip(self.parts[name], states):
                module.load_state_dict(state)


def train_with_early_stopping(model, train_epoch, evaluate, epochs, patience, metric, describe, kind, digits=None):
    """Runs up to `epochs` epochs of train_epoch(), scores each with evaluate() on val, stops after
    `patience` epochs without a better score (BestEpochs), and leaves the model in eval mode with the best
    epoch's weights. Returns the best score and the per-epoch log ({"epoch", metric, "seconds"}; the score
    rounded to `digits` when given); describe(score) words the score for the progress line."""
    best, history = BestEpochs({kind: [model]}, patience), []
    for epoch in range(epochs):
        model.train()
        start = time.time()
        train_epoch()
        score = evaluate()
        history.append({"epoch": epoch, metric: score if digits is None else round(score, digits), "seconds": round(time.time() - start, 1)})
        print(f"{kind} epoch {epoch}: {describe(score)} ({time.time() - start:.0f} s)", flush=True)
        best.consider(epoch, {kind: score})
        if best.should_stop(epoch):
            break
    best.restore()
    model.eval()
    return best.score(kind), history


def export_onnx(module, example, path, input_names, output_names, dynamic_axes=None, opset=17, fold_constants=True):
    """Exports for onnxruntime-web and checks the file with onnx's checker, so a broken export fails here, not
    in the browser. `output_names` is one name or a list. By default every input and output is free in its
    first (batch) axis; `dynamic_axes` replaces that. `fold_constants=False` keeps float16 weights and their
    casts as they are (folding would store them as float32)."""
    outputs = [output_names] if isinstance(output_names, str) else list(output_names)
    torch.onnx.export(
        module, example, path, opset_version=opset, do_constant_folding=fold_constants,
        input_names=input_names, output_names=outputs,
        dynamic_axes=dynamic_axes if dynamic_axes is not None else {n: {0: "batch"} for n in [*input_names, *outputs]},
    )
    onnx.checker.check_model(onnx.load(path))


def record_training(log, log_path, kind, entry):
    """Adds one model's entry to the training log and writes it at once, so a later model's crash keeps it."""
    log[kind] = entry
    json.dump(log, open(log_path, "w"), indent=1)


def exported_models(out, models, log, onnx_file):
    """The models, in their listed order, that have both an ONNX file and a training log entry."""
    return [m for m in models if os.path.exists(os.path.join(out, "onnx", onnx_file(m))) and m in log]


def write_config(path, vocab, log, models, metric, digits=None, extra=None):
    """The config the engine reads: the words, the answers, the models, the default (the best on val by
    log[m]["best_<metric>"]), each model's val score (rounded to `digits` when given), then `extra`."""
    best = f"best_{metric}"
    json.dump({
        "words": vocab["words"], "answers": vocab["answers"], "models": models,
        "default": max(models, key=lambda m: log[m][best]) if models else None,
        metric: {m: log[m][best] if digits is None else round(log[m][best], digits) for m in models},
        **(extra or {}),
    }, open(path, "w"), indent=1)
