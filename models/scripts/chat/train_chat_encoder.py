#!/usr/bin/python3
"""Trains the conversational dual encoder on real human conversations (PolyAI's recipe: Henderson et al.
2019, "Training Neural Response Selection for Task-Oriented Dialogue Systems", sec. 3: in-batch
negatives, the context as the latest turns) and exports it to ONNX for onnxruntime-web.

    /usr/bin/python3 models/scripts/chat/train_chat_encoder.py [--out models/mini-clip/chat] [--epochs 12]

`npm run chat:train` runs it with the data before it and the pool's keys and fusion after it.
Input: models/.cache/chat/pairs.json from `npm run chat:data` (the train and valid parts of DailyDialog
and Topical-Chat, tokenized by the CLIP tokenizer the worker runs; never a test conversation).

Model (both towers share the token tables):
  token vector   frozen GloVe-derived word vector (mini-clip's token table) ++ a learned vector, for the
                 tokens of the kept vocabulary (every token with a GloVe vector or seen in train); other
                 tokens count for nothing
  turn           PolyAI's sqrt-N sum of its token vectors (order-free), then a projection
  context        the latest --context-turns turns: each turn vector gets a learned embedding of how far
                 back it is; the latest turn and the mean of all go through a residual feed-forward tower
                 to a unit vector
  response       the same sum and projection, then its own residual tower to a unit vector
  score          s(c, r) = scale * <c, r>; loss: softmax over the batch's responses (in-batch negatives)
                 and, unless --one-way, over the batch's contexts for each response; a repeated response
                 text is never its own negative

Tried on the valid parts and left out (the figures are in docs/conversational-encoder.md): hashed bigram
features (better on DailyDialog, worse on Topical-Chat), more dropout, ten turns of context, batches of
one corpus each (harder negatives, but slower to learn: behind on both at every epoch), Topical-Chat's
pairs twice an epoch (its valid R@1 peaked lower, at 20.9, and DailyDialog's fell).

Valid: 1-of-100 R@1 of each corpus's valid part (batches of 100 in the order chat:data shuffled them);
the epoch with the best mean over the two corpora is kept. Fixed seeds, --threads threads (2 on the
2-core machine). With Debian's PyTorch, install libopenblas0-pthread first: its generic BLAS is 30x slower.

Writes <out>/chat_encoder.onnx (CLIP token ids in; the unit query of a context and the unit keys of a
batch of texts out; token tables int8, tower weights float16) and <out>/chat.json (sizes, the tokenizer
it was trained with, valid figures per epoch, training time, and a reference query and keys for the
TypeScript parity test)."""
import copy
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
VOCAB = 49408


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def glove_table():
    """mini-clip's frozen token table: the GloVe-derived vector of whole-word tokens, zero for the rest."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(os.path.join(ROOT, "models", "mini-clip", "onnx", "text_model.onnx"))
    for init in model.graph.initializer:
        if init.name == "token_embedding.weight":
            return numpy_helper.to_array(init).astype(np.float32)
    raise SystemExit("models/mini-clip/onnx/text_model.onnx has no token_embedding.weight: restore the mini-clip pack.")


class Tower(nn.Module):
    """Residual feed-forward layers to a unit vector."""

    def __init__(self, dim, hidden, out, layers, dropout):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(dropout), nn.Linear(hidden, dim)) for _ in range(layers)])
        self.norm = nn.LayerNorm(dim)
        self.out = nn.Linear(dim, out)

    def forward(self, x):
        for block in self.blocks:
            x = x + block(x)
        y = self.out(self.norm(x))
        return y / y.norm(dim=-1, keepdim=True).clamp_min(1e-6)


class ChatEncoder(nn.Module):
    def __init__(self, glove, learned_dim, dim, hidden, out, layers, turns, dropout):
        super().__init__()
        rows = glove.shape[0]
        # Bags of tokens summed in one kernel: no [turns, tokens, dim] tensor is ever built.
        self.glove = nn.EmbeddingBag.from_pretrained(torch.from_numpy(glove), freeze=True, mode="sum", padding_idx=0)
        self.learned = nn.EmbeddingBag(rows, learned_dim, mode="sum", padding_idx=0)
        nn.init.normal_(self.learned.weight, std=0.02)
        with torch.no_grad():
            self.learned.weight[0].zero_()
        # One projection per side: a text is projected one way as something said and another as an answer,
        # so a paraphrase of the context is not, by construction, its best match.
        self.context_project = nn.Linear(glove.shape[1] + learned_dim, dim)
        self.response_project = nn.Linear(glove.shape[1] + learned_dim, dim)
        self.position = nn.Embedding(turns, dim)  # 0 = the latest turn, 1 = the one before, ...
        nn.init.normal_(self.position.weight, std=0.02)
        self.turns = turns
        self.context_tower = Tower(2 * dim, hidden, out, layers, dropout)
        self.response_tower = Tower(dim, hidden, out, layers, dropout)
        self.drop = nn.Dropout(dropout)
        self.scale = nn.Parameter(torch.tensor(math.log(20.0)))

    def turn_vectors(self, ids, project):
        """ids: [n, tokens] (0 = padding) -> [n, dim]: the sqrt-N sum of token vectors (PolyAI's reduction), projected."""
        n = (ids > 0).sum(1, keepdim=True).clamp_min(1).float()
        return project(self.drop(torch.cat([self.glove(ids), self.learned(ids)], dim=-1) / n.sqrt()))

    def encode_context(self, ids, present):
        """ids: [b, turns, tokens], latest turn first; present: [b, turns] 1 where a turn exists."""
        b, t, k = ids.shape
        v = self.turn_vectors(ids.reshape(b * t, k), self.context_project).reshape(b, t, -1) + self.position.weight[:t].unsqueeze(0)
        p = present.unsqueeze(-1)
        mean = (v * p).sum(1) / p.sum(1).clamp_min(1.0)
        return self.context_tower(torch.cat([v[:, 0], mean], dim=-1))

    def encode_response(self, ids):
        return self.response_tower(self.turn_vectors(ids, self.response_project))


class ContextExport(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, turn_ids, turn_present):
        return self.model.encode_context(turn_ids.unsqueeze(0), turn_present.unsqueeze(0))


class ResponseExport(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model.encode_response(input_ids)


def pad(rows, width):
    out = np.zeros((len(rows), width), dtype=np.int64)
    for i, r in enumerate(rows):
        r = r[:width]
        out[i, : len(r)] = r
    return out


class Data:
    """Every pair as fixed-size arrays, built once: the context's latest --context-turns turns (latest first) and the response."""

    def __init__(self, path, turns, max_tokens, vocab_map):
        d = json.load(open(path))
        self.turns = turns
        self.max_tokens = max_tokens
        text_ids = pad([vocab_map[np.array(ids, dtype=np.int64)] if ids else [] for ids in d["tokens"]], max_tokens)
        # Row 0 is "no turn": all padding.
        self.table = torch.from_numpy(np.concatenate([np.zeros((1, max_tokens), dtype=np.int64), text_ids]))
        self.train = self.arrays(d["train"])
        self.valid = {c: self.arrays([p for p in d["valid"] if p["corpus"] == c]) for c in sorted(set(p["corpus"] for p in d["valid"]))}
        # Hard negatives of each train pair, as text indices (-1: none): the context's latest turn (an echo),
        # the other turns of the same conversation, and the response's BM25 neighbours (chat:data).
        train = d["train"]
        by_conversation = {}
        for p in train:
            texts = by_conversation.setdefault((p["corpus"], p["conversation"]), set())
            texts.update(p["context"])
            texts.add(p["response"])
        self.same_conversation = [np.array(sorted(by_conversation[(p["corpus"], p["conversation"])] - {p["response"]}), dtype=np.int64) for p in train]
        neighbours = {int(k): np.array(v, dtype=np.int64) for k, v in d.get("neighbours", {}).items()}
        self.neighbours = [neighbours.get(p["response"], np.zeros(0, dtype=np.int64)) for p in train]
        self.latest = torch.tensor([p["context"][-1] for p in train], dtype=torch.int64)

    def hard_negatives(self, index, kinds, rng):
        """[b, len(kinds)] text indices (-1: none) of a batch of train pairs: one of each kind, drawn afresh each epoch."""
        out = np.full((len(index), len(kinds)), -1, dtype=np.int64)
        for row, i in enumerate(index.tolist()):
            for col, kind in enumerate(kinds):
                if kind == "latest":
                    out[row, col] = int(self.latest[i])
                else:
                    pool = self.same_conversation[i] if kind == "conversation" else self.neighbours[i]
                    if len(pool) > 0:
                        out[row, col] = int(pool[rng.integers(len(pool))])
        return torch.from_numpy(out)

    def arrays(self, pairs):
        context = np.zeros((len(pairs), self.turns), dtype=np.int64)  # text index + 1; 0 = no turn
        for i, p in enumerate(pairs):
            ctx = p["context"][-self.turns:][::-1]
            context[i, : len(ctx)] = np.array(ctx) + 1
        return {"context": torch.from_numpy(context), "response": torch.from_numpy(np.array([p["response"] for p in pairs], dtype=np.int64)), "n": len(pairs)}

    def batch(self, part, index, device="cpu"):
        ctx = part["context"][index]
        ids = self.table[ctx]  # [b, turns, tokens]
        present = (ctx > 0).float()
        resp = self.table[part["response"][index] + 1]
        return ids.to(device), present.to(device), resp.to(device), part["response"][index].to(device)


def evaluate(model, data, part, device="cpu"):
    """1-of-100 R@1 and MRR over consecutive batches of 100 (the incomplete last one left out); a response
    repeated in its batch is not its own negative. Also the echo share: how often the context's own latest
    turn, offered as a reply, would score at least as high as the true response."""
    model.eval()
    hits, rr, n, echoes = 0, 0.0, 0, 0
    with torch.no_grad():
        for start in range(0, part["n"] - 99, 100):
            index = torch.arange(start, start + 100)
            ids, present, resp, texts = data.batch(part, index, device)
            c = model.encode_context(ids, present)
            scores = c @ model.encode_response(resp).T
            same = (texts.unsqueeze(0) == texts.unsqueeze(1)) & ~torch.eye(100, dtype=torch.bool, device=texts.device)
            scores = scores.masked_fill(same, -1e9)
            target = scores.diagonal().unsqueeze(1)
            ranks = (scores > target).sum(1) + 1
            hits += int((ranks == 1).sum())
            rr += float((1.0 / ranks.float()).sum())
            latest = (c * model.encode_response(ids[:, 0])).sum(1)
            echoes += int((latest >= target.squeeze(1)).sum())
            n += 100
    model.train()
    return hits / max(1, n), rr / max(1, n), n, echoes / max(1, n)


def quantize_rows(table):
    """Per-row symmetric int8 codes and scales (value ~ code * scale), as Int8Matrix stores rows."""
    scale = np.abs(table).max(axis=1, keepdims=True) / 127.0
    scale[scale == 0] = 1.0
    codes = np.clip(np.round(table / scale), -127, 127).astype(np.int8)
    return codes, scale.astype(np.float32)


class Int8Table(nn.Module):
    """A token table stored as int8 codes with a scale per row: a quarter of the bytes of float32 in the
    ONNX file; a gathered row is code * scale."""

    def __init__(self, table):
        super().__init__()
        codes, scale = quantize_rows(table)
        self.register_buffer("codes", torch.from_numpy(codes))
        self.register_buffer("scale", torch.from_numpy(scale))

    def forward(self, rows):
        return self.codes[rows].float() * self.scale[rows]


class HalfLinear(nn.Module):
    """A linear layer stored in float16 in the ONNX file (half the bytes) and computed in float32."""

    def __init__(self, linear):
        super().__init__()
        self.register_buffer("weight", linear.weight.detach().half())
        self.register_buffer("bias", linear.bias.detach().half())

    def forward(self, x):
        return nn.functional.linear(x, self.weight.float(), self.bias.float())


def halve_linears(module):
    """Every nn.Linear of a module as a HalfLinear, in place."""
    for name, child in module.named_children():
        if isinstance(child, nn.Linear):
            setattr(module, name, HalfLinear(child))
        else:
            halve_linears(child)
    return module


class Exported(nn.Module):
    """What the worker runs: CLIP token ids in (end-of-text pads), the unit query of a context and the unit
    keys of a batch of texts out; the vocabulary map and both towers in one file, so the tables are stored once."""

    def __init__(self, model, vocab_map):
        super().__init__()
        self.model = halve_linears(copy.deepcopy(model))
        self.register_buffer("vocab", torch.from_numpy(vocab_map.astype(np.int32)))
        weights = [model.glove.weight.detach().numpy(), model.learned.weight.detach().numpy()]
        self.tables = nn.ModuleList([Int8Table(w) for w in weights])

    def turns(self, clip_ids, project):
        ids = self.vocab[clip_ids].long()
        n = (ids > 0).sum(1, keepdim=True).clamp_min(1).float()
        mask = (ids > 0).float().unsqueeze(-1)
        parts = [(t(ids) * mask).sum(1) for t in self.tables]
        return project(torch.cat(parts, dim=-1) / n.sqrt())

    def forward(self, context_ids, context_present, response_ids):
        t, k = context_ids.shape
        m = self.model
        v = self.turns(context_ids, m.context_project).unsqueeze(0) + m.position.weight[:t].unsqueeze(0)
        p = context_present.unsqueeze(0).unsqueeze(-1)
        mean = (v * p).sum(1) / p.sum(1).clamp_min(1.0)
        query = m.context_tower(torch.cat([v[:, 0], mean], dim=-1))
        keys = m.response_tower(self.turns(response_ids, m.response_project))
        return query, keys


def export(model, vocab_map, args, meta):
    os.makedirs(args.out, exist_ok=True)
    model.eval().cpu()
    exported = Exported(model, vocab_map).eval()
    eot = 49407
    ctx = torch.full((args.context_turns, 6), eot, dtype=torch.long)
    ctx[0, :3] = torch.tensor([320, 1929, 256])
    present = torch.zeros(args.context_turns)
    present[0] = 1
    resp = torch.full((2, 5), eot, dtype=torch.long)
    resp[:, :2] = torch.tensor([[1929, 256], [320, 2368]])
    path = os.path.join(args.out, "chat_encoder.onnx")
    # No constant folding: it would turn the float16 weights and their casts back into float32 initializers
    # (onnxruntime folds them when it loads the model, so the file stays half the size).
    export_onnx(exported, (ctx, present, resp), path, ["context_ids", "context_present", "response_ids"], ["query", "keys"],
                dynamic_axes={"context_ids": {1: "context_tokens"}, "response_ids": {0: "texts", 1: "tokens"}, "keys": {0: "texts"}}, opset=14, fold_constants=False)
    with torch.no_grad():
        q, k = exported(ctx, present, resp)
        # The reference the TypeScript parity test checks the worker's run against.
        meta["reference"] = {"contextIds": ctx.tolist(), "contextPresent": present.tolist(), "responseIds": resp.tolist(), "query": q[0].tolist(), "keys": k.tolist()}
    with open(os.path.join(args.out, "chat.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    log(f"wrote {path} ({os.path.getsize(path) / 1e6:.1f} MB) and chat.json")


def train(model, data, args):
    """Trains with in-batch negatives, keeps the epoch with the best mean valid R@1 (loaded into the model), and returns it with the valid figures per epoch."""
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=args.weight_decay)
    steps_per_epoch = data.train["n"] // args.batch
    total = steps_per_epoch * args.epochs
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 200) * max(0.05, 1 - s / total))
    sizes = ", ".join(f"{c} {v['n']}" for c, v in data.valid.items())
    log(f"{data.train['n']} train pairs, valid {sizes}; {sum(p.numel() for p in params)} trained parameters")

    def valid_figures():
        figs = {c: evaluate(model, data, v, args.device) for c, v in data.valid.items()}
        return figs, sum(f[0] for f in figs.values()) / len(figs)

    # Epoch 0 is the untrained model; the epoch with the best mean valid R@1 is kept.
    best = BestEpochs({"encoder": [model]}, args.patience)
    figs, mean = valid_figures()
    log("epoch 0: " + ", ".join(f"{c} R@1 {f[0]:.3f} MRR {f[1]:.3f} echo {f[3]:.3f}" for c, f in figs.items()))
    best.consider(0, {"encoder": mean})
    figs_by_epoch = {0: figs}
    generator = torch.Generator().manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    hard_kinds = [k for k in args.hard_negatives.split(",") if k]
    history = []
    for epoch in range(1, args.epochs + 1):
        t0 = time.time()
        order = torch.randperm(data.train["n"], generator=generator)
        batches = [order[i : i + args.batch] for i in range(0, data.train["n"] - args.batch + 1, args.batch)]
        total_loss = 0.0
        for batch in batches:
            ids, present, resp, texts = data.batch(data.train, batch, args.device)
            c = model.encode_context(ids, present)
            r = model.encode_response(resp)
            scale = model.scale.exp().clamp(max=100)
            logits = scale * (c @ r.T)
            same = (texts.unsqueeze(0) == texts.unsqueeze(1)) & ~torch.eye(len(texts), dtype=torch.bool, device=texts.device)
            logits = logits.masked_fill(same, -1e4)
            target = torch.arange(len(texts), device=texts.device)
            if hard_kinds:
                # The batch's hard negatives are more columns for every context; one with a context's own
                # response text, and a missing one (-1), never counts.
                hard = data.hard_negatives(batch, hard_kinds, rng).reshape(-1).to(args.device)
                h = model.encode_response(data.table[hard.clamp_min(-1) + 1].to(args.device))
                hard_logits = (scale * (c @ h.T)).masked_fill((hard.unsqueeze(0) == texts.unsqueeze(1)) | (hard < 0).unsqueeze(0), -1e4)
                loss = nn.functional.cross_entropy(torch.cat([logits, hard_logits], dim=1), target)
            else:
                loss = nn.functional.cross_entropy(logits, target)
            if not args.one_way:  # also pick the context for each response (a response's negatives: the batch's other contexts)
                loss = 0.5 * (loss + nn.functional.cross_entropy(logits.T, target))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total_loss += float(loss)
        figs, mean = valid_figures()
        history.append({"epoch": epoch, "loss": total_loss / len(batches), "valid": {c: {"r1": f[0], "mrr": f[1], "echo": f[3]} for c, f in figs.items()}, "seconds": time.time() - t0})
        log(f"epoch {epoch}: loss {total_loss / len(batches):.3f}, " + ", ".join(f"{c} R@1 {f[0]:.3f} MRR {f[1]:.3f} echo {f[3]:.3f}" for c, f in figs.items()) + f" ({time.time() - t0:.0f} s)")
        figs_by_epoch[epoch] = figs
        best.consider(epoch, {"encoder": mean})
        if best.should_stop(epoch):
            break
    best.restore()
    best_epoch = best.epochs()["encoder"]
    return best_epoch, figs_by_epoch[best_epoch], history


def main():
    ap = trainer_parser(out=os.path.join(ROOT, "models", "mini-clip", "chat"), epochs=12, patience=3, batch=1024)
    ap.add_argument("--data", default=os.path.join(ROOT, "models", ".cache", "chat", "pairs.json"))
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--learned-dim", type=int, default=128)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--out-dim", type=int, default=128)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--context-turns", type=int, default=5)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--one-way", action="store_true", help="only pick the response for each context (PolyAI); by default also the context for each response")
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--hard-negatives", default="latest,conversation",
                    help="hard negatives per pair, beside the batch's responses: latest (the context's own latest turn), conversation (another turn of the same conversation), bm25 (a BM25 neighbour of the response); '' for in-batch negatives only")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--results", default="")
    ap.add_argument("--no-export", action="store_true")
    ap.add_argument("--checkpoint", default=os.path.join(ROOT, "models", ".cache", "chat", "encoder.pt"), help="where the best epoch is kept, so --export-only can export it again")
    ap.add_argument("--export-only", action="store_true", help="export the checkpoint of an earlier run instead of training")
    args = ap.parse_args()
    torch.manual_seed(SEED)
    random.seed(SEED)
    np.random.seed(SEED)
    torch.set_num_threads(args.threads)
    started = time.time()

    raw = json.load(open(args.data))  # read once for the vocabulary, then again as arrays
    glove_full = glove_table()
    has_glove = np.abs(glove_full).sum(1) > 0
    seen = np.zeros(VOCAB, bool)
    train_texts = set()
    for p in raw["train"]:
        train_texts.update(p["context"])
        train_texts.add(p["response"])
    for t in train_texts:
        seen[raw["tokens"][t]] = True
    keep = np.nonzero(has_glove | seen)[0]
    vocab_map = np.zeros(VOCAB, dtype=np.int64)  # 0 = unknown
    vocab_map[keep] = np.arange(1, len(keep) + 1)
    glove = np.zeros((len(keep) + 1, glove_full.shape[1]), dtype=np.float32)
    glove[1:] = glove_full[keep]
    log(f"vocabulary: {len(keep)} of {VOCAB} CLIP tokens ({int(has_glove.sum())} with a GloVe vector, {int(seen.sum())} seen in train)")
    del raw

    data = Data(args.data, args.context_turns, args.max_tokens, vocab_map)
    model = ChatEncoder(glove, args.learned_dim, args.dim, args.hidden, args.out_dim, args.layers, args.context_turns, args.dropout).to(args.device)
    if args.export_only:
        saved = torch.load(args.checkpoint)
        model.load_state_dict(saved["state"])
        best_epoch, best_figs, history, seconds = saved["best_epoch"], saved["best_figs"], saved["history"], saved["seconds"]
        log(f"exporting epoch {best_epoch} from {args.checkpoint}")
    else:
        best_epoch, best_figs, history = train(model, data, args)
        seconds = round(time.time() - started)
        log(f"best epoch {best_epoch}: mean valid R@1 {sum(f[0] for f in best_figs.values()) / len(best_figs):.3f}; {seconds} s in all")
        os.makedirs(os.path.dirname(args.checkpoint), exist_ok=True)
        torch.save({"state": model.state_dict(), "best_epoch": best_epoch, "best_figs": best_figs, "history": history, "seconds": seconds}, args.checkpoint)
    if args.results:
        with open(args.results, "a") as f:
            f.write(json.dumps({"args": vars(args), "best_epoch": best_epoch, "valid": {c: fig[0] for c, fig in best_figs.items()}, "history": history}) + "\n")
    if args.no_export:
        return
    meta = {
        "version": 1,
        "what": "conversational dual encoder (PolyAI recipe) trained on the train parts of DailyDialog and Topical-Chat",
        "contextTurns": args.context_turns,
        "maxTokens": args.max_tokens,
        "dim": args.out_dim,
        "padId": 49407,
        "tokenizer": json.load(open(args.data))["tokenizer"],
        "training": {"recipe": "npm run chat:train", "args": {k: v for k, v in vars(args).items() if k not in ("data", "out", "results", "checkpoint", "export_only", "no_export")}, "bestEpoch": best_epoch,
                     "valid": {c: {"r1": f[0], "mrr": f[1], "contexts": f[2], "echo": f[3]} for c, f in best_figs.items()}, "history": history, "seconds": seconds},
    }
    export(model, vocab_map, args, meta)


if __name__ == "__main__":
    main()
