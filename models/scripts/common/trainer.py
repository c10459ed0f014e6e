"""What the answer-ranker trainers (avsd/train_avsd.py, clevr/train_clevr.py) share: their command line, the
arrays `npm run <x>:data` writes, training with early stopping on the val split, ONNX export with a
dynamic batch, the training log and the config the engine reads (<x>.json)."""
import argparse
import json
import os
import time

import numpy as np
import onnx
import torch


def trainer_arguments(data, out, models, epochs, patience, batch, extra=()):
    """--data, --out, --models (comma-separated; '' trains nothing), --epochs, --patience, --batch, --seed,
    and a trainer's own string options `extra` as (flag, default) pairs."""
    parser = argparse.ArgumentParser()
    for flag, default in extra:
        parser.add_argument(flag, default=default)
    parser.add_argument("--data", default=data)
    parser.add_argument("--out", default=out)
    parser.add_argument("--models", default=",".join(models))
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--patience", type=int, default=patience)
    parser.add_argument("--batch", type=int, default=batch)
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


def train_with_early_stopping(model, train_epoch, evaluate, epochs, patience, metric, describe, kind, digits=None):
    """Runs up to `epochs` epochs of train_epoch(), scores each with evaluate() on val, stops after
    `patience` epochs without a better score, and leaves the model in eval mode with the best epoch's
    weights. Returns the best score and the per-epoch log ({"epoch", metric, "seconds"}; the score
    rounded to `digits` when given); describe(score) words the score for the progress line."""
    best, best_state, history, since = -1.0, None, [], 0
    for epoch in range(epochs):
        model.train()
        start = time.time()
        train_epoch()
        score = evaluate()
        history.append({"epoch": epoch, metric: score if digits is None else round(score, digits), "seconds": round(time.time() - start, 1)})
        print(f"{kind} epoch {epoch}: {describe(score)} ({time.time() - start:.0f} s)", flush=True)
        if score > best:
            best, best_state, since = score, {k: v.clone() for k, v in model.state_dict().items()}, 0
        else:
            since += 1
            if since >= patience:
                break
    model.load_state_dict(best_state)
    model.eval()
    return best, history


def export_onnx(module, example, path, input_names, output_name):
    """Opset 17 for onnxruntime-web, every input and the output free in their first (batch) axis; the file
    is checked with onnx's checker so a broken export fails here, not in the browser."""
    torch.onnx.export(
        module, example, path, opset_version=17,
        input_names=input_names, output_names=[output_name],
        dynamic_axes={**{n: {0: "batch"} for n in input_names}, output_name: {0: "batch"}},
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
