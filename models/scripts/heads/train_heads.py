"""Trains the response heads of a pack on the demo train split (MMDialog DE++, paper sec. 7.2 and
appendix A, at demo scale) and exports them to ONNX for onnxruntime-web:

  intent        I([U, R<j]) -> text / image / stop (eq. 4): a small transformer over a [CLS] token and
                the context element embeddings (frozen CLIP of the pack), logits from [CLS]
  ranker        S: the same kind of transformer over [CLS_m] (m = the modality sought) and the context
                gives a query; a separate pass over each candidate gives its key; score = dot product
  clip-map      the PolyAI "map" baseline: cosine(x, (W + aI) y) per candidate modality, W and a learned
                with the dot-product loss on in-batch negatives

Input: models/.cache/heads/<pack>/ from `npm run heads:data -- --pack <pack>`. Early-stopped on the
valid split (1-of-100 ranking and intent accuracy). Deterministic (fixed seeds, one thread).
Writes models/<pack>/heads/{intent,ranker_context,ranker_candidate}.onnx, clip_map.bin, heads.json."""
import argparse
import json
import math
import os
import random
import time

import numpy as np
import torch
from torch import nn

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
SEED = 7
HIDDEN = 128
KEY_DIM = 128
LAYERS = 2
HEADS = 4
MAX_ELEMENTS = 24  # latest context elements the heads see
INTENTS = ["text", "image", "stop"]
# Segment of an element, relative to the one replying: the other speaker, the replier's own earlier
# turns, and the response being built.
OTHER, SELF, PARTIAL = 0, 1, 2


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


class Block(nn.Module):
    """Pre-norm transformer layer written out with matmuls, so it exports to plain ONNX ops."""

    def __init__(self, h, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        self.qkv, self.out = nn.Linear(h, 3 * h), nn.Linear(h, h)
        self.ff = nn.Sequential(nn.Linear(h, 2 * h), nn.GELU(), nn.Linear(2 * h, h))

    def forward(self, x, bias):  # x [b, n, h], bias [b, 1, 1, n] (0 or -1e4 for padding)
        b, n, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).reshape(b, n, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(h // self.heads) + bias, dim=-1)
        x = x + self.out((att @ v).transpose(1, 2).reshape(b, n, h))
        return x + self.ff(self.ln2(x))


class ContextEncoder(nn.Module):
    """[CLS_c] + context elements -> the [CLS] state. c picks one of n_cls learned start tokens."""

    def __init__(self, dim, n_cls):
        super().__init__()
        self.inp = nn.Linear(dim, HIDDEN)
        self.modality = nn.Embedding(2, HIDDEN)
        self.segment = nn.Embedding(3, HIDDEN)
        self.position = nn.Embedding(MAX_ELEMENTS + 1, HIDDEN)  # counted back from the latest element
        self.cls = nn.Embedding(n_cls, HIDDEN)
        self.blocks = nn.ModuleList([Block(HIDDEN, HEADS) for _ in range(LAYERS)])
        self.ln = nn.LayerNorm(HIDDEN)

    def forward(self, elements, modality, segment, mask, cls_index):
        # elements [b, n, dim], modality/segment [b, n] int64, mask [b, n] (1 = real), cls_index [b]
        b, n, _ = elements.shape
        back = (mask.flip(1).cumsum(1).flip(1) - 1).clamp(min=0).long()  # 0 for the latest element
        x = self.inp(elements) + self.modality(modality) + self.segment(segment) + self.position(back + 1)
        x = torch.cat([self.cls(cls_index)[:, None] + self.position.weight[0], x], 1)
        full = torch.cat([torch.ones(b, 1), mask], 1)
        bias = ((1 - full) * -1e4)[:, None, None, :]
        for block in self.blocks:
            x = block(x, bias)
        return self.ln(x[:, 0])


class IntentHead(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.encoder = ContextEncoder(dim, 1)
        self.out = nn.Linear(HIDDEN, 3)

    def forward(self, elements, modality, segment, mask):
        return self.out(self.encoder(elements, modality, segment, mask, torch.zeros(elements.shape[0], dtype=torch.long)))


class RankerContext(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.encoder = ContextEncoder(dim, 2)
        self.out = nn.Linear(HIDDEN, KEY_DIM)

    def forward(self, elements, modality, segment, mask, target_modality):
        return self.out(self.encoder(elements, modality, segment, mask, target_modality))


class RankerCandidate(nn.Module):
    """The separate pass over each candidate: its CLIP embedding and modality -> a key."""

    def __init__(self, dim):
        super().__init__()
        self.inp = nn.Linear(dim, HIDDEN)
        self.modality = nn.Embedding(2, HIDDEN)
        self.net = nn.Sequential(nn.GELU(), nn.Linear(HIDDEN, HIDDEN), nn.GELU(), nn.Linear(HIDDEN, KEY_DIM))

    def forward(self, candidates, modality):
        return self.net(self.inp(candidates) + self.modality(modality))


# ---------- data ----------

def examples(records, kinds, with_negatives=False):
    """One example per step j of every response (turns after the first): the context elements with
    segments relative to the replier, the response so far, and the target (intent; item for j < L)."""
    out = []
    for rec in records:
        turns = rec["turns"]
        for t in range(1, len(turns)):
            context = []
            for s, turn in enumerate(turns[:t]):
                seg = SELF if (t - s) % 2 == 0 else OTHER
                context += [(item, seg) for item in turn]
            response = turns[t]
            for j in range(len(response) + 1):
                elems = (context + [(item, PARTIAL) for item in response[:j]])[-MAX_ELEMENTS:]
                ex = {"elements": elems, "intent": INTENTS.index(kinds[response[j]]) if j < len(response) else 2,
                      "target": response[j] if j < len(response) else None, "step": j, "last_turn": [i for i in turns[t - 1]]}
                if with_negatives and j < len(response):
                    ex["negatives"] = rec["negativeTexts" if kinds[response[j]] == "text" else "negativeImages"][:99]
                out.append(ex)
    return out


def batch_tensors(batch, emb, kinds):
    n = max(len(ex["elements"]) for ex in batch)
    dim = emb.shape[1]
    elements = torch.zeros(len(batch), n, dim)
    modality = torch.zeros(len(batch), n, dtype=torch.long)
    segment = torch.zeros(len(batch), n, dtype=torch.long)
    mask = torch.zeros(len(batch), n)
    for b, ex in enumerate(batch):
        off = n - len(ex["elements"])  # left-pad so the latest element is always last
        for i, (item, seg) in enumerate(ex["elements"]):
            elements[b, off + i] = emb[item]
            modality[b, off + i] = 0 if kinds[item] == "text" else 1
            segment[b, off + i] = seg
            mask[b, off + i] = 1
    return elements, modality, segment, mask


def mean_unit(vectors):
    v = vectors.mean(0)
    return v / v.norm().clamp(min=1e-8)


# ---------- training ----------

def train(args):
    torch.manual_seed(SEED)
    random.seed(SEED)
    np.random.seed(SEED)
    torch.set_num_threads(1)
    cache = os.path.join(ROOT, "models", ".cache", "heads", args.pack)
    meta = json.load(open(os.path.join(cache, "dialogues.json")))
    dim = meta["dim"]
    emb = torch.from_numpy(np.fromfile(os.path.join(cache, "embeddings.bin"), dtype=np.float32).reshape(-1, dim).copy())
    kinds = meta["kinds"]
    pool = {"text": list(range(meta["poolTexts"])), "image": list(range(meta["poolTexts"], meta["poolTexts"] + meta["poolImages"]))}
    train_ex = examples(meta["splits"]["train"], kinds)
    valid_ex = examples(meta["splits"]["valid"], kinds, with_negatives=True)
    log(f"{len(train_ex)} train steps, {len(valid_ex)} valid steps, dim {dim}, pool {len(pool['text'])} texts / {len(pool['image'])} images")

    intent, ctx, cand = IntentHead(dim), RankerContext(dim), RankerCandidate(dim)
    params = list(intent.parameters()) + list(ctx.parameters()) + list(cand.parameters())
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    best, best_state, bad_epochs, history = -1.0, None, 0, []
    for epoch in range(1, args.epochs + 1):
        intent.train(), ctx.train(), cand.train()
        order = list(range(len(train_ex)))
        random.shuffle(order)
        total = 0.0
        for s in range(0, len(order), args.batch):
            batch = [train_ex[i] for i in order[s:s + args.batch]]
            elements, modality, segment, mask = batch_tensors(batch, emb, kinds)
            loss = nn.functional.cross_entropy(intent(elements, modality, segment, mask), torch.tensor([ex["intent"] for ex in batch]))
            for m, name in enumerate(["text", "image"]):
                idx = [b for b, ex in enumerate(batch) if ex["target"] is not None and kinds[ex["target"]] == name]
                if not idx:
                    continue
                q = ctx(elements[idx], modality[idx], segment[idx], mask[idx], torch.full((len(idx),), m, dtype=torch.long))
                targets = [batch[b]["target"] for b in idx]
                negatives = random.sample(pool[name], args.negatives)
                items = targets + [n for n in negatives if n not in targets]
                keys = cand(emb[items], torch.full((len(items),), m, dtype=torch.long))
                loss = loss + nn.functional.cross_entropy(q @ keys.T, torch.arange(len(idx)))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(batch)
        score, figures = evaluate(intent, ctx, cand, valid_ex, emb, kinds)
        history.append({"epoch": epoch, "train_loss": total / len(train_ex), **figures})
        log(f"epoch {epoch}: loss {total / len(train_ex):.3f} · valid intent acc {figures['intent_acc']:.1f} · text 1-of-100 {figures['text_r1']:.1f} · image 1-of-100 {figures['image_r1']:.1f}")
        if score > best:
            best, bad_epochs = score, 0
            best_state = [{k: v.clone() for k, v in m.state_dict().items()} for m in (intent, ctx, cand)]
            best_epoch = epoch
        else:
            bad_epochs += 1
            if bad_epochs >= args.patience:
                break
    for m, state in zip((intent, ctx, cand), best_state):
        m.load_state_dict(state)
    log(f"best epoch {best_epoch}")
    maps = train_maps(meta, emb, kinds, pool, args)
    export(args.pack, dim, intent, ctx, cand, maps, meta, history, best_epoch)


@torch.no_grad()
def evaluate(intent, ctx, cand, valid_ex, emb, kinds):
    intent.eval(), ctx.eval(), cand.eval()
    correct, hits = 0, {"text": [], "image": []}
    for s in range(0, len(valid_ex), 64):
        batch = valid_ex[s:s + 64]
        elements, modality, segment, mask = batch_tensors(batch, emb, kinds)
        pred = intent(elements, modality, segment, mask).argmax(1)
        correct += sum(int(p) == ex["intent"] for p, ex in zip(pred, batch))
        for m, name in enumerate(["text", "image"]):
            idx = [b for b, ex in enumerate(batch) if ex["target"] is not None and kinds[ex["target"]] == name]
            if not idx:
                continue
            q = ctx(elements[idx], modality[idx], segment[idx], mask[idx], torch.full((len(idx),), m, dtype=torch.long))
            for row, b in enumerate(idx):
                items = [batch[b]["target"]] + batch[b]["negatives"]
                scores = cand(emb[items], torch.full((len(items),), m, dtype=torch.long)) @ q[row]
                hits[name].append(float(scores[0] > scores[1:].max()))
    f = {"intent_acc": 100 * correct / len(valid_ex), "text_r1": 100 * np.mean(hits["text"]), "image_r1": 100 * np.mean(hits["image"])}
    return f["intent_acc"] / 100 + (f["text_r1"] + f["image_r1"]) / 200, f


def train_maps(meta, emb, kinds, pool, args):
    """clip-map: x = the unit mean of the latest turn's CLIP embeddings, y a response element; in-batch
    softmax over x . (W + aI) y, early-stopped on valid 1-of-100."""
    out = {}
    pairs = {"train": {"text": [], "image": []}, "valid": {"text": [], "image": []}}
    for split in ("train", "valid"):
        for ex in examples(meta["splits"][split], kinds, with_negatives=split == "valid"):
            if ex["target"] is None:
                continue
            x = mean_unit(emb[ex["last_turn"]])
            pairs[split][kinds[ex["target"]]].append((x, ex["target"], ex.get("negatives")))
    for name in ("text", "image"):
        torch.manual_seed(SEED)
        dim = emb.shape[1]
        w = torch.zeros(dim, dim, requires_grad=True)
        a = torch.ones(1, requires_grad=True)
        opt = torch.optim.Adam([w, a], lr=1e-3)
        data = pairs["train"][name]
        best, best_wa, bad = -1.0, (w.detach().clone(), a.detach().clone()), 0
        for epoch in range(60):
            random.shuffle(data)
            for s in range(0, len(data), 64):
                chunk = data[s:s + 64]
                x = torch.stack([c[0] for c in chunk])
                y = emb[[c[1] for c in chunk]]
                mapped = y @ w.T + a * y
                mapped = mapped / mapped.norm(dim=1, keepdim=True)
                loss = nn.functional.cross_entropy(x @ mapped.T * 20, torch.arange(len(chunk)))
                opt.zero_grad()
                loss.backward()
                opt.step()
            with torch.no_grad():
                hits = []
                for x, target, negs in pairs["valid"][name]:
                    y = emb[[target] + negs]
                    mapped = y @ w.T + a * y
                    scores = (mapped / mapped.norm(dim=1, keepdim=True)) @ x
                    hits.append(float(scores[0] > scores[1:].max()))
                r1 = 100 * float(np.mean(hits))
            if r1 > best:
                best, best_wa, bad = r1, (w.detach().clone(), a.detach().clone()), 0
            else:
                bad += 1
                if bad >= 8:
                    break
        log(f"clip-map {name}: valid 1-of-100 R@1 {best:.1f} after {epoch + 1} epochs")
        out[name] = {"w": best_wa[0].numpy(), "a": float(best_wa[1]), "valid_r1": best}
    return out


def export(pack, dim, intent, ctx, cand, maps, meta, history, best_epoch):
    out = os.path.join(ROOT, "models", pack, "heads")
    os.makedirs(out, exist_ok=True)
    intent.eval(), ctx.eval(), cand.eval()
    n = 5
    dummy = (torch.randn(1, n, dim), torch.zeros(1, n, dtype=torch.long), torch.zeros(1, n, dtype=torch.long), torch.ones(1, n))
    seq_axes = {"elements": {1: "n"}, "modality": {1: "n"}, "segment": {1: "n"}, "mask": {1: "n"}}
    torch.onnx.export(intent, dummy, os.path.join(out, "intent.onnx"), input_names=["elements", "modality", "segment", "mask"],
                      output_names=["intent_logits"], dynamic_axes=seq_axes, opset_version=14)
    torch.onnx.export(ctx, dummy + (torch.zeros(1, dtype=torch.long),), os.path.join(out, "ranker_context.onnx"),
                      input_names=["elements", "modality", "segment", "mask", "target_modality"], output_names=["query"], dynamic_axes=seq_axes, opset_version=14)
    torch.onnx.export(cand, (torch.randn(3, dim), torch.zeros(3, dtype=torch.long)), os.path.join(out, "ranker_candidate.onnx"),
                      input_names=["candidates", "modality"], output_names=["keys"], dynamic_axes={"candidates": {0: "m"}, "modality": {0: "m"}, "keys": {0: "m"}}, opset_version=14)
    np.concatenate([maps["text"]["w"].ravel(), maps["image"]["w"].ravel()]).astype("<f4").tofile(os.path.join(out, "clip_map.bin"))
    last = history[best_epoch - 1]
    json.dump({"version": 1, "pack": pack, "packFingerprint": meta["packFingerprint"], "dim": dim, "keyDim": KEY_DIM, "maxElements": MAX_ELEMENTS,
               "segments": {"other": OTHER, "self": SELF, "partial": PARTIAL},
               "clipMap": {"file": "clip_map.bin", "text": {"a": maps["text"]["a"], "validR1": maps["text"]["valid_r1"]}, "image": {"a": maps["image"]["a"], "validR1": maps["image"]["valid_r1"]}},
               "trainedOn": "public/dialogues/train (demo), early-stopped on valid", "bestEpoch": best_epoch, "valid": last, "history": history},
              open(os.path.join(out, "heads.json"), "w"), indent=1)
    log(f"wrote {out}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--pack", default="mini-clip")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--patience", type=int, default=6)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--negatives", type=int, default=255)
    ap.add_argument("--lr", type=float, default=3e-4)
    train(ap.parse_args())
