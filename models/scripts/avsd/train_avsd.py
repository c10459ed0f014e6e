#!/usr/bin/python3
"""AVSD answer rankers (Alamri et al. 2019, sec. 5, the late-fusion baseline), trained on the project's
own generated clips and dialogs.

Reads the arrays `npm run avsd:data` writes (models/.cache/avsd/data: text encoded by the engine's
avsdInputs.ts, video and audio features from its analyzeVideo), trains one model per input set of the
paper's ablation, keeps the epoch with the best MRR on the val split, and exports it to ONNX for
onnxruntime-web: models/avsd/onnx/avsd-<set>.onnx, with models/avsd/avsd.json (words, answer bank,
models, default) and models/avsd/training.json (val MRR per epoch).

Each input is encoded apart and the codes are concatenated (late fusion), then mapped to the space of
the candidate answers; a candidate's score is its dot product with that (the paper scores candidates
the same way, with LSTM encoders where this uses bags of words: the questions and answers here are
short and the recipe must run on the 2-core machine).
  q         question
  q-dh      + dialog history (the last 5 rounds, each its own slot, so "it" can find its round)
  q-dh-v    + video features
  q-dh-a    + audio features
  q-dh-v-a  + both

Usage: /usr/bin/python3 models/scripts/avsd/train_avsd.py [--models q,...] [--epochs 20] [--data DIR]
Seeded; torch on CPU with 2 threads.
"""
import argparse
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MODELS = ["q", "q-dh", "q-dh-v", "q-dh-a", "q-dh-v-a"]
FLOATS = ("video", "audio")
EMBED, HIDDEN, JOINT = 64, 256, 128


def load_split(data_dir, name):
    meta = json.load(open(os.path.join(data_dir, f"{name}.json")))
    out = {}
    for key, shape in meta["shapes"].items():
        dtype = np.float32 if key in FLOATS else np.int32
        out[key] = np.fromfile(os.path.join(data_dir, f"{name}.{key}.{'f32' if key in FLOATS else 'i32'}"), dtype=dtype).reshape(shape)
    return out


def bag(embedded, tokens):
    """Mean of the word vectors of each sentence (pads left out); an empty sentence gives zeros."""
    mask = (tokens > 0).float().unsqueeze(-1)
    return (embedded * mask).sum(-2) / mask.sum(-2).clamp(min=1)


class Ranker(nn.Module):
    def __init__(self, kind, vocab, history_rounds, video_stats, audio_stats):
        super().__init__()
        self.kind = kind
        self.uses = {"history": "dh" in kind, "video": kind.endswith("-v") or "-v-" in kind, "audio": kind.endswith("-a")}
        self.embed = nn.Embedding(vocab, EMBED, padding_idx=0)
        width = EMBED
        if self.uses["history"]:
            self.history = nn.Sequential(nn.Linear(history_rounds * EMBED, HIDDEN), nn.ReLU())
            width += HIDDEN
        for name, stats in (("video", video_stats), ("audio", audio_stats)):
            if self.uses[name]:
                # Standardized with the train split's mean and spread, kept in the model so the engine feeds raw features.
                self.register_buffer(f"{name}_mean", torch.tensor(stats[0]))
                self.register_buffer(f"{name}_std", torch.tensor(stats[1]))
                setattr(self, f"{name}_encoder", nn.Sequential(nn.Linear(len(stats[0]), HIDDEN), nn.ReLU()))
                width += HIDDEN
        self.fuse = nn.Sequential(nn.Linear(width, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, JOINT))
        self.answer = nn.Sequential(nn.Linear(EMBED, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, JOINT))

    def forward(self, question, candidates, history=None, video=None, audio=None):
        joint = self.context(question, history, video, audio)
        answers = self.answer(bag(self.embed(candidates), candidates))
        return (answers * joint.unsqueeze(1)).sum(-1)

    def forward_indexed(self, question, answer_tokens, candidate_index, history=None, video=None, audio=None):
        """The same scores, with each distinct answer encoded once (training: the candidates come from one bank)."""
        joint = self.context(question, history, video, audio)
        answers = self.answer(bag(self.embed(answer_tokens), answer_tokens))[candidate_index]
        return (answers * joint.unsqueeze(1)).sum(-1)

    def context(self, question, history, video, audio):
        parts = [bag(self.embed(question), question)]
        if self.uses["history"]:
            rounds = bag(self.embed(history), history)
            parts.append(self.history(rounds.flatten(1)))
        if self.uses["video"]:
            parts.append(self.video_encoder((video - self.video_mean) / self.video_std))
        if self.uses["audio"]:
            parts.append(self.audio_encoder((audio - self.audio_mean) / self.audio_std))
        return self.fuse(torch.cat(parts, 1))

    def input_names(self):
        return ["question", "candidates"] + [n for n in ("history", "video", "audio") if self.uses[n]]


def index_answers(split):
    """Each split's distinct candidate answers once (answer_tokens) and, per question, which they are."""
    rows, inverse = np.unique(split["candidates"].reshape(-1, split["candidates"].shape[2]), axis=0, return_inverse=True)
    split["answer_tokens"] = torch.from_numpy(rows).long()
    split["candidate_index"] = inverse.reshape(split["candidates"].shape[:2])


def scores_of(model, split, inputs):
    return model.forward_indexed(inputs["question"], split["answer_tokens"], inputs["candidate_index"], **{n: inputs[n] for n in model.input_names()[2:]})


def batch(split, idx):
    clip = split["clip"][idx]
    return {
        "question": torch.from_numpy(split["question"][idx]).long(),
        "candidates": torch.from_numpy(split["candidates"][idx]).long(),
        "candidate_index": torch.from_numpy(split["candidate_index"][idx]).long(),
        "history": torch.from_numpy(split["history"][idx]).long(),
        "video": torch.from_numpy(split["video"][clip]),
        "audio": torch.from_numpy(split["audio"][clip]),
    }, torch.from_numpy(split["label"][idx]).long()


def mrr(model, split, size=512):
    model.eval()
    ranks = []
    with torch.no_grad():
        for start in range(0, len(split["label"]), size):
            inputs, label = batch(split, np.arange(start, min(start + size, len(split["label"]))))
            scores = scores_of(model, split, inputs)
            right = scores.gather(1, label.unsqueeze(1))
            ranks.append(1 + (scores > right).sum(1))
    return float((1.0 / torch.cat(ranks).float()).mean())


def stats(x):
    return x.mean(0).astype(np.float32), (x.std(0) + 1e-3).astype(np.float32)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=os.path.join(ROOT, "models", ".cache", "avsd", "data"))
    parser.add_argument("--out", default=os.path.join(ROOT, "models", "avsd"))
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--patience", type=int, default=3)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(2)
    vocab = json.load(open(os.path.join(args.data, "vocab.json")))
    train, val = load_split(args.data, "train"), load_split(args.data, "val")
    index_answers(train)
    index_answers(val)
    os.makedirs(os.path.join(args.out, "onnx"), exist_ok=True)
    log_path = os.path.join(args.out, "training.json")
    log = json.load(open(log_path)) if os.path.exists(log_path) else {}
    for kind in [m for m in args.models.split(",") if m]:
        torch.manual_seed(args.seed)
        rng = np.random.default_rng(args.seed)
        model = Ranker(kind, len(vocab["words"]), train["history"].shape[1], stats(train["video"]), stats(train["audio"]))
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        best, best_state, epochs, since = -1.0, None, [], 0
        for epoch in range(args.epochs):
            model.train()
            start = time.time()
            order = rng.permutation(len(train["label"]))
            for b in range(0, len(order), args.batch):
                inputs, label = batch(train, order[b:b + args.batch])
                loss = F.cross_entropy(scores_of(model, train, inputs), label)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            score = mrr(model, val)
            epochs.append({"epoch": epoch, "val_mrr": round(score, 5), "seconds": round(time.time() - start, 1)})
            print(f"{kind} epoch {epoch}: val MRR {100 * score:.2f} ({time.time() - start:.0f} s)", flush=True)
            if score > best:
                best, best_state, since = score, {k: v.clone() for k, v in model.state_dict().items()}, 0
            else:
                since += 1
                if since >= args.patience:
                    break
        model.load_state_dict(best_state)
        model.eval()
        names = model.input_names()
        inputs, _ = batch(val, np.arange(2))

        class Exported(nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, *xs):
                return self.inner(**dict(zip(names, xs)))

        path = os.path.join(args.out, "onnx", f"avsd-{kind}.onnx")
        torch.onnx.export(
            Exported(model), tuple(inputs[n] for n in names), path, opset_version=17,
            input_names=names, output_names=["scores"],
            dynamic_axes={**{n: {0: "batch"} for n in names}, "scores": {0: "batch"}},
        )
        log[kind] = {"best_val_mrr": round(best, 5), "epochs": epochs, "seed": args.seed, "batch": args.batch, "lr": 1e-3}
        json.dump(log, open(log_path, "w"), indent=1)
        print(f"{kind}: best val MRR {100 * best:.2f} -> {path}", flush=True)
    write_config(args.out, vocab, log)


def write_config(out, vocab, log):
    """models/avsd/avsd.json: the words, the answer bank, the models exported, and the default: the best on val."""
    models = [m for m in MODELS if os.path.exists(os.path.join(out, "onnx", f"avsd-{m}.onnx")) and m in log]
    json.dump({
        "words": vocab["words"], "answers": vocab["answers"], "models": models,
        "default": max(models, key=lambda m: log[m]["best_val_mrr"]) if models else None,
        "val_mrr": {m: log[m]["best_val_mrr"] for m in models},
    }, open(os.path.join(out, "avsd.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
