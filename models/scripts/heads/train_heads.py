"""Trains the response heads of a pack on the demo train split (MMDialog DE++, paper sec. 7.2 and
appendix A, at demo scale) and exports them to ONNX for onnxruntime-web:

  intent        I([U, R<j]) -> text / image / stop (eq. 4): a small transformer over a [CLS] token and
                the context element embeddings (frozen CLIP of the pack), logits from [CLS]
  clip-map      the PolyAI "map" baseline: cosine(x, (W + aI) y) per candidate modality, read from
                heads:data, which trains it with the project's one clip-map trainer (TypeScript)
  ranker        S, one per modality m: the query is the latest turn's unit mean embedding x (the anchor)
                plus a correction from the same kind of transformer over [CLS_m] and the context; a
                separate pass over each candidate gives its key, clip-map's (W_m + a_m I) y plus a
                correction; both corrections start at zero (so S starts as clip-map), both vectors
                are unit length; score = their dot product. Trained with targets softened by CLIP
                similarity to the reference (--soft-tau), since MM-Relevance credits a near miss.

Input: models/.cache/heads/<pack>/ from `npm run heads:data -- --pack <pack>` (embeddings, dialogues and
the clip-map). The intent head, the text
ranker and the image ranker are each kept at their own best valid epoch (epoch 0 = untrained): intent
accuracy; for a ranker, the CLIP cosine of the pool's top-1 candidate to the reference plus R@1 among
the record's 999 negatives. Fixed seeds, one thread.
Writes models/<pack>/heads/{intent,ranker_context,ranker_candidate}.onnx, clip_map.bin, heads.json."""
import json
import math
import os
import random
import sys
import time

import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common.trainer import BestEpochs, export_onnx, trainer_parser  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
SEED = 7
HIDDEN = 128
LAYERS = 2
HEADS = 4
MAX_ELEMENTS = 24  # latest context elements the heads see
INTENTS = ["text", "image", "stop"]
# Segment of an element, relative to the one replying: the other speaker, the replier's own earlier
# turns, and the response being built.
OTHER, SELF, PARTIAL = 0, 1, 2
# What the response already holds, as the intent head is told it: min(elements, 3) * 2 + (1 if it has an image).
REPLY_STATES = 8


def reply_state(partial_kinds):
    return min(len(partial_kinds), 3) * 2 + (1 if "image" in partial_kinds else 0)


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
    """I([U, R<j]) (eq. 4). Besides the elements (the response so far among them, segment PARTIAL), its [CLS]
    starts from the reply state: how many elements the response holds and whether one is an image, so
    "stop after the picture" and "a picture after 'look at this'" are told apart at every step."""

    def __init__(self, dim):
        super().__init__()
        self.encoder = ContextEncoder(dim, REPLY_STATES)
        self.out = nn.Linear(HIDDEN, 3)

    def forward(self, elements, modality, segment, mask, reply_state):
        return self.out(self.encoder(elements, modality, segment, mask, reply_state))


class RankerContext(nn.Module):
    """The query: the latest turn's unit mean CLIP embedding (the anchor, clip-map's x) plus a correction
    from the transformer over the whole context. The correction starts at zero, so the untrained
    ranker is exactly clip-map and training can only move away from it where valid says it helps."""

    def __init__(self, dim):
        super().__init__()
        self.encoder = ContextEncoder(dim, 2)
        self.out = nn.Linear(HIDDEN, dim)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def forward(self, elements, modality, segment, mask, target_modality, anchor):
        # Unit queries and keys: with raw dot products a few long keys win for every query (hubs).
        return nn.functional.normalize(anchor + self.out(self.encoder(elements, modality, segment, mask, target_modality)), dim=-1)


class RankerCandidate(nn.Module):
    """The separate pass over each candidate: clip-map's (W_m + a_m I) y for its modality m, plus a
    learned correction that starts at zero; unit length."""

    def __init__(self, dim, maps):
        super().__init__()
        self.w = nn.Parameter(torch.stack([torch.from_numpy(maps[n]["w"].copy()) for n in ("text", "image")]))  # [2, dim, dim]
        self.a = nn.Parameter(torch.tensor([[maps["text"]["a"]], [maps["image"]["a"]]], dtype=torch.float32))  # [2, 1]
        self.inp = nn.Linear(dim, HIDDEN)
        self.modality = nn.Embedding(2, HIDDEN)
        self.net = nn.Sequential(nn.GELU(), nn.Linear(HIDDEN, HIDDEN), nn.GELU(), nn.Linear(HIDDEN, dim))
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, candidates, modality):
        # Both maps, then each row keeps its own modality's: cheaper than gathering a matrix per row.
        by_text = candidates @ self.w[0].T + self.a[0] * candidates
        by_image = candidates @ self.w[1].T + self.a[1] * candidates
        mapped = torch.where((modality == 0)[:, None], by_text, by_image)
        mapped = nn.functional.normalize(mapped, dim=-1)
        return nn.functional.normalize(mapped + self.net(self.inp(candidates) + self.modality(modality)), dim=-1)


class ByModality(nn.Module):
    """One exported model from the text ranker and the image ranker, each trained and selected on its
    own: every row takes the output of its modality's model."""

    def __init__(self, text_model, image_model, modality_arg):
        super().__init__()
        self.text_model, self.image_model, self.modality_arg = text_model, image_model, modality_arg

    def forward(self, *inputs):
        by_text = self.text_model(*inputs)
        by_image = self.image_model(*inputs)
        return torch.where((inputs[self.modality_arg] == 0)[:, None], by_text, by_image)


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
                      "reply_state": reply_state([kinds[i] for i in response[:j]]),
                      "target": response[j] if j < len(response) else None, "step": j, "last_turn": [i for i in turns[t - 1]]}
                if with_negatives and j < len(response):
                    ex["negatives"] = rec["negativeTexts" if kinds[response[j]] == "text" else "negativeImages"]
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


def ranker_queries(batch, tensors, rankers, emb, kinds):
    """For each modality with targets in the batch: its index, name, the batch rows, their queries from
    that modality's ranker, and the ranker's candidate pass."""
    elements, modality, segment, mask = tensors
    for m, name in enumerate(["text", "image"]):
        idx = [b for b, ex in enumerate(batch) if ex["target"] is not None and kinds[ex["target"]] == name]
        if not idx:
            continue
        ctx, cand = rankers[name]
        q = ctx(elements[idx], modality[idx], segment[idx], mask[idx], torch.full((len(idx),), m, dtype=torch.long), anchors([batch[b] for b in idx], emb))
        yield m, name, idx, q, cand


def reply_states(batch):
    return torch.tensor([ex["reply_state"] for ex in batch], dtype=torch.long)


def anchors(batch, emb):
    return torch.stack([mean_unit(emb[ex["last_turn"]]) for ex in batch])


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

    maps = read_maps(cache, meta)
    intent = IntentHead(dim)
    # A ranker per modality (context pass and candidate pass), each selected at its own best epoch.
    rankers = {name: (RankerContext(dim), RankerCandidate(dim, maps)) for name in ("text", "image")}
    log_scale = nn.Parameter(torch.tensor(math.log(20.0)))  # cosine -> logits temperature, learned
    params = list(intent.parameters()) + [p for pair in rankers.values() for m in pair for p in m.parameters()] + [log_scale]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    # The intent head and the ranker are selected separately, each at its best valid epoch; epoch 0
    # is the untrained state (for the ranker: clip-map itself).
    history, best = [], BestEpochs({"intent": [intent], "text": list(rankers["text"]), "image": list(rankers["image"])}, args.patience)

    def report(epoch, loss):
        figures = evaluate(intent, rankers, valid_ex, emb, kinds, pool)
        history.append({"epoch": epoch, "train_loss": loss, **figures})
        log(f"epoch {epoch}: loss {'-' if loss is None else f'{loss:.3f}'} · valid intent acc {figures['intent_acc']:.1f} · 1-of-1000 R@1 text {figures['text_r1']:.1f} image {figures['image_r1']:.1f}"
            f" · CLIP cosine of the pool's top 1 to the reference: text {figures['text_top1_cos']:.3f} image {figures['image_top1_cos']:.3f}")
        # A ranker's score: the CLIP cosine of its pool top-1 to the reference (what MM-Relevance
        # measures) plus R@1 among the 999 negatives.
        best.consider(epoch, {"intent": figures["intent_acc"],
                              "text": figures["text_top1_cos"] + figures["text_r1"] / 100,
                              "image": figures["image_top1_cos"] + figures["image_r1"] / 100})

    report(0, None)
    for epoch in range(1, args.epochs + 1):
        for m in (intent, *rankers["text"], *rankers["image"]):
            m.train()
        order = list(range(len(train_ex)))
        random.shuffle(order)
        total = 0.0
        for s in range(0, len(order), args.batch):
            batch = [train_ex[i] for i in order[s:s + args.batch]]
            elements, modality, segment, mask = batch_tensors(batch, emb, kinds)
            loss = nn.functional.cross_entropy(intent(elements, modality, segment, mask, reply_states(batch)), torch.tensor([ex["intent"] for ex in batch]))
            for m, name, idx, q, cand in ranker_queries(batch, (elements, modality, segment, mask), rankers, emb, kinds):
                targets = [batch[b]["target"] for b in idx]
                negatives = random.sample(pool[name], args.negatives)
                items = targets + [n for n in negatives if n not in targets]
                keys = cand(emb[items], torch.full((len(items),), m, dtype=torch.long))
                logits = q @ keys.T * log_scale.clamp(max=math.log(100.0)).exp()
                if args.soft_tau > 0:
                    # Credit candidates by their CLIP similarity to the reference, so a near miss is
                    # still close to it: MM-Relevance (eqs. 2-3) scores exactly that closeness.
                    soft = torch.softmax(emb[targets] @ emb[items].T / args.soft_tau, dim=1)
                    loss = loss + torch.sum(-soft * torch.log_softmax(logits, dim=1), dim=1).mean()
                else:
                    loss = loss + nn.functional.cross_entropy(logits, torch.arange(len(idx)))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(batch)
        report(epoch, total / len(train_ex))
        if best.should_stop(epoch):
            break
    best.restore()
    epochs = best.epochs()
    log(f"best epochs: {epochs}; ranker logit scale {float(log_scale.exp()):.1f}")
    ctx = ByModality(rankers["text"][0], rankers["image"][0], modality_arg=4)
    cand = ByModality(rankers["text"][1], rankers["image"][1], modality_arg=1)
    recipe = {k: v for k, v in vars(args).items() if k != "out"}
    export(args.out or os.path.join(ROOT, "models", args.pack, "heads"), args.pack, dim, intent, ctx, cand, maps, meta, history, epochs, recipe)


@torch.no_grad()
def evaluate(intent, rankers, valid_ex, emb, kinds, pool):
    """Valid figures close to the benchmark's: intent accuracy, R@1 among the record's 999 negatives,
    and the CLIP cosine between the reference and the pool's top-1 candidate (what MM-Relevance scores)."""
    for m in (intent, *rankers["text"], *rankers["image"]):
        m.eval()
    pool_keys = {name: rankers[name][1](emb[pool[name]], torch.full((len(pool[name]),), m, dtype=torch.long)) for m, name in enumerate(["text", "image"])}
    # A candidate's key depends on the candidate alone: every item's key of each modality, once per evaluation.
    all_keys = {name: rankers[name][1](emb, torch.full((emb.shape[0],), m, dtype=torch.long)) for m, name in enumerate(["text", "image"])}
    correct, hits, top1_cos = 0, {"text": [], "image": []}, {"text": [], "image": []}
    for s in range(0, len(valid_ex), 64):
        batch = valid_ex[s:s + 64]
        elements, modality, segment, mask = batch_tensors(batch, emb, kinds)
        pred = intent(elements, modality, segment, mask, reply_states(batch)).argmax(1)
        correct += sum(int(p) == ex["intent"] for p, ex in zip(pred, batch))
        for m, name, idx, q, cand in ranker_queries(batch, (elements, modality, segment, mask), rankers, emb, kinds):
            best = (q @ pool_keys[name].T).argmax(1)
            for row, b in enumerate(idx):
                target = batch[b]["target"]
                items = [target] + batch[b]["negatives"]
                scores = all_keys[name][items] @ q[row]
                hits[name].append(float(scores[0] > scores[1:].max()))
                top1_cos[name].append(float(emb[pool[name][int(best[row])]] @ emb[target]))
    f = {"intent_acc": 100 * correct / len(valid_ex), "text_r1": 100 * np.mean(hits["text"]), "image_r1": 100 * np.mean(hits["image"]),
         "text_top1_cos": float(np.mean(top1_cos["text"])), "image_top1_cos": float(np.mean(top1_cos["image"]))}
    return f


def read_maps(cache, meta):
    """clip-map: one map per candidate modality, trained by `npm run heads:data` with the project's one
    clip-map trainer (src/engine/ranking/trainClipMap.ts; `bench -- select` trains with it too):
    x = the unit mean of the latest turn's CLIP embeddings, y a response element, in-batch softmax
    over 20 x cosine(x, (W + aI) y), early-stopped on valid R@1 among each record's first 99 negatives."""
    dim = meta["dim"]
    info = json.load(open(os.path.join(cache, "clip_map.json")))
    if info["packFingerprint"] != meta["packFingerprint"] or info["dim"] != dim:
        raise SystemExit(f"{cache}/clip_map.json belongs to other data: run npm run heads:data again.")
    w = np.fromfile(os.path.join(cache, "clip_map.bin"), dtype="<f4")
    if w.size != 2 * dim * dim:
        raise SystemExit(f"{cache}/clip_map.bin has {w.size} values, not {2 * dim * dim}: run npm run heads:data again.")
    out = {}
    for i, name in enumerate(("text", "image")):
        # Row-major W, as applyMap reads it: mapped = W y + a y.
        out[name] = {"w": w[i * dim * dim:(i + 1) * dim * dim].reshape(dim, dim).copy(), "a": float(info[name]["a"]), "valid_r1": 100 * info[name]["validR1"]}
        log(f"clip-map {name}: valid R@1 among 99 negatives {out[name]['valid_r1']:.1f} (epoch {info[name]['bestEpoch']}, from heads:data)")
    return out


def export(out, pack, dim, intent, ctx, cand, maps, meta, history, best_epochs, recipe):
    os.makedirs(out, exist_ok=True)
    intent.eval(), ctx.eval(), cand.eval()
    n = 5
    dummy = (torch.randn(1, n, dim), torch.zeros(1, n, dtype=torch.long), torch.zeros(1, n, dtype=torch.long), torch.ones(1, n))
    seq_axes = {"elements": {1: "n"}, "modality": {1: "n"}, "segment": {1: "n"}, "mask": {1: "n"}}
    export_onnx(intent, dummy + (torch.zeros(1, dtype=torch.long),), os.path.join(out, "intent.onnx"), ["elements", "modality", "segment", "mask", "reply_state"],
                "intent_logits", dynamic_axes=seq_axes, opset=14)
    export_onnx(ctx, dummy + (torch.zeros(1, dtype=torch.long), mean_unit(torch.randn(3, dim))[None]), os.path.join(out, "ranker_context.onnx"),
                ["elements", "modality", "segment", "mask", "target_modality", "anchor"], "query", dynamic_axes=seq_axes, opset=14)
    export_onnx(cand, (torch.randn(3, dim), torch.zeros(3, dtype=torch.long)), os.path.join(out, "ranker_candidate.onnx"),
                ["candidates", "modality"], "keys", dynamic_axes={"candidates": {0: "m"}, "modality": {0: "m"}, "keys": {0: "m"}}, opset=14)
    np.concatenate([maps["text"]["w"].ravel(), maps["image"]["w"].ravel()]).astype("<f4").tofile(os.path.join(out, "clip_map.bin"))
    # heads.json version 3: the intent head also takes the reply state (REPLY_STATES); since version 2 the
    # ranker's context pass takes the anchor (the latest turn's unit mean embedding).
    json.dump({"version": 3, "pack": pack, "packFingerprint": meta["packFingerprint"], "dim": dim, "keyDim": dim, "maxElements": MAX_ELEMENTS,
               "segments": {"other": OTHER, "self": SELF, "partial": PARTIAL},
               "clipMap": {"file": "clip_map.bin", "text": {"a": maps["text"]["a"], "validR1": maps["text"]["valid_r1"]}, "image": {"a": maps["image"]["a"], "validR1": maps["image"]["valid_r1"]}},
               "trainedOn": "public/dialogues/train (demo), early-stopped on valid", "recipe": recipe, "bestEpoch": best_epochs,
               "valid": {part: history[epoch] for part, epoch in best_epochs.items()}, "history": history},
              open(os.path.join(out, "heads.json"), "w"), indent=1)
    log(f"wrote {out}")


if __name__ == "__main__":
    # --out: the folder for the heads (default models/<pack>/heads). With 3,500 train dialogues (33k steps)
    # an epoch takes about 5 minutes on one core of this machine, so the recipe stops after 2 epochs without
    # a better intent head or ranker, and at 8 at most.
    ap = trainer_parser(out=None, epochs=8, patience=2, batch=64)
    ap.add_argument("--pack", default="mini-clip")
    ap.add_argument("--negatives", type=int, default=255)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--soft-tau", type=float, default=0.05, help="temperature of the CLIP-similarity soft targets (0: one-hot)")
    train(ap.parse_args())
