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
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common.trainer import (  # noqa: E402
    chosen_models, exported_models, export_onnx, load_split, record_training, seeded, start_training, trainer_arguments,
    train_with_early_stopping, write_config as write_trained_config,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MODELS = ["q", "q-dh", "q-dh-v", "q-dh-a", "q-dh-v-a"]
FLOATS = ("video", "audio")
EMBED, HIDDEN, JOINT = 64, 256, 128


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
    args = trainer_arguments(os.path.join(ROOT, "models", ".cache", "avsd", "data"), os.path.join(ROOT, "models", "avsd"), MODELS, epochs=20, patience=3, batch=64)
    vocab, log_path, log = start_training(args.data, args.out)
    train, val = load_split(args.data, "train", FLOATS), load_split(args.data, "val", FLOATS)
    index_answers(train)
    index_answers(val)
    for kind in chosen_models(args.models):
        rng = seeded(args.seed)
        model = Ranker(kind, len(vocab["words"]), train["history"].shape[1], stats(train["video"]), stats(train["audio"]))
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

        def train_epoch():
            order = rng.permutation(len(train["label"]))
            for b in range(0, len(order), args.batch):
                inputs, label = batch(train, order[b:b + args.batch])
                loss = F.cross_entropy(scores_of(model, train, inputs), label)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

        best, epochs = train_with_early_stopping(model, train_epoch, lambda: mrr(model, val), args.epochs, args.patience,
                                                 "val_mrr", lambda score: f"val MRR {100 * score:.2f}", kind, digits=5)
        names = model.input_names()
        inputs, _ = batch(val, np.arange(2))

        class Exported(nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, *xs):
                return self.inner(**dict(zip(names, xs)))

        path = os.path.join(args.out, "onnx", f"avsd-{kind}.onnx")
        export_onnx(Exported(model), tuple(inputs[n] for n in names), path, names, "scores")
        record_training(log, log_path, kind, {"best_val_mrr": round(best, 5), "epochs": epochs, "seed": args.seed, "batch": args.batch, "lr": 1e-3})
        print(f"{kind}: best val MRR {100 * best:.2f} -> {path}", flush=True)
    write_config(args.out, vocab, log)


def write_config(out, vocab, log):
    """models/avsd/avsd.json: the words, the answer bank, the models exported, and the default: the best on val."""
    models = exported_models(out, MODELS, log, lambda m: f"avsd-{m}.onnx")
    write_trained_config(os.path.join(out, "avsd.json"), vocab, log, models, "val_mrr")


if __name__ == "__main__":
    main()
