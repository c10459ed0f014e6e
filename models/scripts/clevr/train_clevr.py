#!/usr/bin/python3
"""CLEVR-Dialog answerers (Kottur et al. 2019, sec. 5), trained on the project's own generated dialogs.

Reads the arrays `npm run clevr:data` writes (models/.cache/clevr/data, encoded by the engine's
clevrFeatures.ts), trains each model with Adam, keeps the epoch with the best accuracy on the val split,
and exports it to ONNX for onnxruntime-web: models/clevr/onnx/<model>.onnx, with models/clevr/clevr.json
(words, answers, models) and models/clevr/training.json (val accuracy per epoch).

Models (classifiers over the 28 answers; the image side is the scene's object features):
  lf-q      question only
  lf-qi     + objects, attended by the question
  lf-qih    + history: each round encoded, averaged (late fusion)
  hre-qih   + history through a round-level LSTM (hierarchical recurrent encoder)
  mn-qih    + history as a memory the question attends over (memory network)
  coref-qih the memory network with explicit coreference: its attention over the history is also
            trained to point at the round that mentioned the referent (the grammar knows it), and
            the objects are attended by the question together with that round.

Usage: /usr/bin/python3 models/scripts/clevr/train_clevr.py [--models lf-q,...] [--epochs 6] [--data DIR]
(--models '' trains nothing and rewrites clevr.json from training.json.)
Runs on the 2-core machine (torch on CPU, 2 threads); seeded.
"""
import json
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
MODELS = ["lf-q", "lf-qi", "lf-qih", "hre-qih", "mn-qih", "coref-qih"]
FLOATS = ("objects", "mask")
EMBED, HIDDEN = 64, 128


class SentenceEncoder(nn.Module):
    """Two width-3 convolutions and a max over the words (pads masked); an empty sentence gives zeros.

    The paper's models read sentences with LSTMs. Here an LSTM step over a batch of history took 9.6 s on
    the 2-core machine (Debian's torch 1.13 on CPU), 14x the convolution's, too slow for a recipe
    that must run here; the fusion of question, history and image, which the models are named
    after, is kept as the paper describes it.
    """

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(EMBED, HIDDEN, 3, padding=1)
        self.conv2 = nn.Conv1d(HIDDEN, HIDDEN, 3, padding=1)

    def forward(self, embedded, tokens):
        x = torch.relu(self.conv1(embedded.transpose(1, 2)))
        x = torch.relu(self.conv2(x))
        words = (tokens != 0).unsqueeze(1).float()
        pooled = (x + (words - 1) * 1e4).max(dim=2).values
        return pooled * (tokens != 0).any(dim=1, keepdim=True).float()


class Answerer(nn.Module):
    def __init__(self, kind, vocab, answers, object_features):
        super().__init__()
        self.kind = kind
        self.embed = nn.Embedding(vocab, EMBED, padding_idx=0)
        self.q_enc = SentenceEncoder()
        uses_history = kind.endswith("h")
        uses_image = "i" in kind.split("-")[1]
        self.uses_history, self.uses_image = uses_history, uses_image
        if uses_history:
            self.h_enc = SentenceEncoder()
        if kind == "hre-qih":
            self.dialog_lstm = nn.LSTM(HIDDEN, HIDDEN, batch_first=True)
        if kind in ("mn-qih", "coref-qih"):
            self.memory_query = nn.Linear(HIDDEN, HIDDEN)
        if uses_image:
            self.obj = nn.Linear(object_features, HIDDEN)
            self.att_obj = nn.Linear(HIDDEN, HIDDEN)
            self.att_ctx = nn.Linear(HIDDEN * (2 if uses_history else 1), HIDDEN)
            self.att_w = nn.Linear(HIDDEN, 1)
        width = HIDDEN * (1 + int(uses_history) + int(uses_image))
        self.classify = nn.Sequential(nn.Linear(width, 256), nn.ReLU(), nn.Linear(256, answers))

    def encode_history(self, history):
        """Each round of the history ([B, R, T] tokens) as one vector, and which rounds exist."""
        b, r, t = history.shape
        flat = history.reshape(b * r, t)
        rounds = self.h_enc(self.embed(flat), flat).reshape(b, r, HIDDEN)
        present = (history != 0).any(dim=2).float()
        return rounds, present

    def forward(self, question, history, objects, object_mask):
        """One question with its own history (the exported graph): history [B, R, T] tokens."""
        rounds, present = self.encode_history(history) if self.uses_history else (None, None)
        dialog_states = None
        if self.kind == "hre-qih":
            out, _ = self.dialog_lstm(rounds)
            count = present.sum(1).long().clamp(min=1)
            dialog_states = out.gather(1, (count - 1).view(-1, 1, 1).expand(-1, 1, HIDDEN)).squeeze(1)
        return self.fuse(question, rounds, present, dialog_states, objects, object_mask)

    def forward_dialogs(self, question, last_history, round_index, objects, object_mask):
        """Training on whole dialogs: the history of a dialog's last round holds every earlier one, so its
        rounds are encoded once and each question sees those before it (same function as forward)."""
        rounds = present = dialog_states = None
        if self.uses_history:
            rounds_d, present_d = self.encode_history(last_history)
            per = question.size(0) // last_history.size(0)
            rounds = rounds_d.repeat_interleave(per, 0)
            upto = torch.arange(rounds.size(1)).unsqueeze(0) <= round_index.unsqueeze(1)
            present = present_d.repeat_interleave(per, 0) * upto.float()
            if self.kind == "hre-qih":
                out, _ = self.dialog_lstm(rounds_d)
                out = out.repeat_interleave(per, 0)
                dialog_states = out[torch.arange(out.size(0)), round_index]
        return self.fuse(question, rounds, present, dialog_states, objects, object_mask)

    def fuse(self, question, rounds, present, dialog_states, objects, object_mask):
        q = self.q_enc(self.embed(question), question)
        parts = [q]
        context = q
        self.history_attention = None
        if self.uses_history:
            if self.kind == "lf-qih":
                h = (rounds * present.unsqueeze(2)).sum(1) / present.sum(1, keepdim=True).clamp(min=1)
            elif self.kind == "hre-qih":
                h = dialog_states
            else:
                scores = (rounds * self.memory_query(q).unsqueeze(1)).sum(2) + (present - 1) * 1e4
                self.history_attention = scores
                h = (torch.softmax(scores, dim=1).unsqueeze(2) * rounds).sum(1)
            parts.append(h)
            context = torch.cat([q, h], dim=1)
        if self.uses_image:
            o = torch.relu(self.obj(objects))
            scores = self.att_w(torch.tanh(self.att_obj(o) + self.att_ctx(context).unsqueeze(1))).squeeze(2)
            scores = scores + (object_mask - 1) * 1e4
            weights = torch.softmax(scores, dim=1)
            parts.append((weights.unsqueeze(2) * o).sum(1))
        return self.classify(torch.cat(parts, dim=1))


def dialog_batches(split, order, size, per=10):
    """Batches of whole dialogs (the arrays hold each dialog's rounds one after another)."""
    for start in range(0, len(order), size):
        dialogs = order[start : start + size]
        idx = (dialogs[:, None] * per + np.arange(per)[None, :]).reshape(-1)
        scene = split["scene"][idx]
        yield (
            torch.from_numpy(split["question"][idx].astype(np.int64)),
            torch.from_numpy(split["history"][dialogs * per + per - 1].astype(np.int64)),
            torch.from_numpy(split["round"][idx].astype(np.int64)),
            torch.from_numpy(split["objects"][scene]),
            torch.from_numpy(split["mask"][scene]),
            torch.from_numpy(split["answer"][idx].astype(np.int64)),
            idx,
        )


def batches(split, order, size):
    for start in range(0, len(order), size):
        idx = order[start : start + size]
        scene = split["scene"][idx]
        yield (
            torch.from_numpy(split["question"][idx].astype(np.int64)),
            torch.from_numpy(split["history"][idx].astype(np.int64)),
            torch.from_numpy(split["objects"][scene]),
            torch.from_numpy(split["mask"][scene]),
            torch.from_numpy(split["answer"][idx].astype(np.int64)),
            idx,
        )


def coref_targets(split, idx):
    """The history index of the round that mentioned the referent: round number minus distance (caption = 0)."""
    n = split["round"][idx]  # 0-based round of the question
    d = split["coref"][idx]
    target = n + 1 - d
    return torch.from_numpy(np.where(d > 0, target, -1).astype(np.int64))


def accuracy(model, split, size=512):
    """Val accuracy through the exported path (each question with its own history)."""
    model.eval()
    right = 0
    with torch.no_grad():
        for q, h, o, m, a, _ in batches(split, np.arange(len(split["answer"])), size):
            right += (model(q, h, o, m).argmax(1) == a).sum().item()
    return right / len(split["answer"])


def main():
    args = trainer_arguments(os.path.join(ROOT, "models", ".cache", "clevr", "data"), os.path.join(ROOT, "models", "clevr"), MODELS, epochs=6, patience=2, batch=256)
    vocab, log_path, log = start_training(args.data, args.out)
    train, val = load_split(args.data, "train", FLOATS), load_split(args.data, "val", FLOATS)
    # Training batches whole dialogs of 10 rounds stored one after another (dialog_batches).
    assert np.array_equal(train["round"], np.tile(np.arange(10), len(train["round"]) // 10)), "every train dialog must have 10 rounds in order"
    for kind in chosen_models(args.models):
        rng = seeded(args.seed)
        model = Answerer(kind, len(vocab["words"]), len(vocab["answers"]), train["objects"].shape[2])
        optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)

        def train_epoch():
            for q, h, r, o, m, a, idx in dialog_batches(train, rng.permutation(len(train["answer"]) // 10), args.batch // 10):
                logits = model.forward_dialogs(q, h, r, o, m)
                loss = F.cross_entropy(logits, a)
                if kind == "coref-qih":
                    target = coref_targets(train, idx)
                    if (target >= 0).any():
                        loss = loss + F.cross_entropy(model.history_attention, target, ignore_index=-1)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

        best, epochs = train_with_early_stopping(model, train_epoch, lambda: accuracy(model, val), args.epochs, args.patience,
                                                 "val_accuracy", lambda acc: f"val accuracy {100 * acc:.2f}%", kind)
        example = next(batches(val, np.arange(2), 2))[:4]
        path = os.path.join(args.out, "onnx", f"{kind}.onnx")
        export_onnx(model, example, path, ["question", "history", "objects", "object_mask"], "logits")
        record_training(log, log_path, kind, {"best_val_accuracy": best, "epochs": epochs, "seed": args.seed, "batch": args.batch, "lr": 2e-3})
        print(f"{kind}: best val accuracy {100 * best:.2f}% -> {path}", flush=True)
    write_config(args.out, vocab, train)


def write_config(out, vocab, train):
    """models/clevr/clevr.json: the words, the answers, the models exported, and the default: the best on val."""
    log = json.load(open(os.path.join(out, "training.json")))
    models = exported_models(out, MODELS, log, lambda m: f"{m}.onnx")
    write_trained_config(os.path.join(out, "clevr.json"), vocab, log, models, "val_accuracy", digits=4, extra={
        "inputs": {"question_tokens": train["question"].shape[1], "history_rounds": train["history"].shape[1], "round_tokens": train["history"].shape[2], "max_objects": train["objects"].shape[1], "object_features": train["objects"].shape[2]},
    })


if __name__ == "__main__":
    main()
