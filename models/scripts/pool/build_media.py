"""Builds the demo pool's images and their catalogue (public/pool/media.json): every image openly
licensed, resized for the web (WebP, longest side <= 512 px), with an alt-text and an attribution
record. Sources (the same as mini-clip's, see models/mini-clip/DATA.md):
  stickers  Microsoft Fluent Emoji 3D (npm @lobehub/fluent-emoji-3d, MIT), named by CLDR (emojibase-data)
  photos    GCompris (Debian gcompris-qt-data), licence per file from the activity's resource/README
  scenes    rendered here from Fluent stickers on drawn backgrounds; alt-text from the scene graph
Needs the training cache (npm run models:train -- mini-clip fetches it). Deterministic: a rerun
writes byte-identical files. Never reads ../shared/data (evaluation-only)."""
import argparse
import fnmatch
import glob
import hashlib
import io
import json
import os
import random
import re
import shutil
import sys

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "mini_clip"))
import prepare_data  # noqa: E402
from train import render_scene  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SEED = 2023
MAX_SIDE = 512
SCENE_SIZE = 384

# emojibase subgroups left out of the pool: near-duplicate people, hair and skin-tone parts
SKIPPED_SUBGROUPS = {"person-role", "family", "person-symbol", "skin-tone", "hair-style", "body-parts", "person-fantasy"}
TOPIC_BY_SUBGROUP = [
    (r"^(face-|cat-face|monkey-face|heart|emotion|hand|hands)", "feelings"),
    (r"^(person-sport|sport|award-medal)$", "sports"),
    (r"^(person|person-gesture|person-activity|person-resting|game|arts-crafts|clothing|phone|computer|light-video|book-paper|money|mail|writing|office|lock|tool|science|medical|household|other-object|time)$", "daily-life"),
    (r"^animal-", "animals"),
    (r"^(plant-|sky-weather)", "nature"),
    (r"^(food-|drink|dishware)", "food"),
    (r"^(place-|transport-|hotel)", "travel"),
    (r"^event$", "celebrations"),
    (r"^(sound|music|musical-instrument)$", "music"),
]
PHOTO_TOPIC = {"explore_monuments": "travel", "explore_world_animals": "animals", "explore_farm_animals": "animals",
               "explore_world_music": "music", "details": "travel", "erase": "animals", "categorization": None}
CATEGORY_TOPIC = {"tools": "daily-life", "fishes": "animals", "monuments": "travel", "others": "daily-life", "renewable": "nature"}
LICENCES = {"public domain": "Public domain", "cc0-1.0": "CC0 1.0", "cc-by 2.0": "CC BY 2.0", "cc-by-2.0": "CC BY 2.0", "cc-by 3.0": "CC BY 3.0",
            "cc-by-3.0": "CC BY 3.0", "cc-by 4.0": "CC BY 4.0", "cc-by-sa 4.0": "CC BY-SA 4.0", "cc-by-sa-4.0": "CC BY-SA 4.0"}
# Scenes: which sticker topics fit which background, so a rendered scene is plausible.
SCENE_TOPICS = {"grass": ["animals", "nature", "sports"], "beach": ["travel", "food", "sports", "animals"], "snow": ["nature", "sports", "animals"],
                "table": ["food", "celebrations", "daily-life"], "sky": ["nature", "travel"], "water": ["animals", "travel"],
                "room": ["daily-life", "music", "celebrations"], "street": ["travel", "daily-life"]}
SCENE_SUBGROUPS_OK = re.compile(r"^(animal-|plant-|food-|drink|transport-|sport|event|musical-instrument|game|household|clothing|sky-weather|place-building)")


def topic_of(subgroup):
    for pattern, topic in TOPIC_BY_SUBGROUP:
        if re.search(pattern, subgroup):
            return topic
    return "daily-life"


def sentence_case(text):
    return text[:1].upper() + text[1:]


def stickers(npm):
    base = os.path.join(npm, "node_modules")
    emojibase = json.load(open(os.path.join(base, "emojibase-data", "en", "data.json")))
    messages = json.load(open(os.path.join(base, "emojibase-data", "en", "messages.json")))
    subgroup_name = {s["order"]: s["key"] for s in messages["subgroups"]}
    fluent_dir = os.path.join(base, "@lobehub", "fluent-emoji-3d", "assets")
    fluent = {}
    for path in sorted(glob.glob(os.path.join(fluent_dir, "*.webp"))):
        fluent.setdefault(prepare_data.norm_hex(os.path.basename(path)[:-5]), path)
    items = []
    for e in emojibase:
        if e.get("group") not in prepare_data.EMOJI_GROUPS_KEPT:
            continue
        subgroup = subgroup_name.get(e.get("subgroup"), "")
        key = prepare_data.norm_hex(e["hexcode"])
        if subgroup in SKIPPED_SUBGROUPS or key not in fluent:
            continue
        label = e["label"].replace(":", "").strip()
        items.append({"key": "st-" + key, "src": fluent[key], "kind": "sticker", "alt": f"{sentence_case(label)} sticker", "label": label,
                      "keywords": [t for t in e.get("tags", []) if t != label][:8], "topic": topic_of(subgroup), "subgroup": subgroup,
                      "source": "@lobehub/fluent-emoji-3d@1.1.0 (npm)", "author": "Microsoft (Fluent Emoji)", "licence": "MIT",
                      "sourceUrl": "https://github.com/microsoft/fluentui-emoji"})
    return items


def readme_records(readme):
    """Debian-copyright-style blocks: Copyright / License / Source / Files (one per line) / Comment."""
    records, cur, in_files = [], None, False
    for raw in open(readme, encoding="utf-8").read().splitlines() + [""]:
        line = raw.strip()
        field = re.match(r"^(Copyright|License|Source|Files|Comment):\s*(.*)$", line)
        if field and field.group(1) == "Copyright" and cur and cur.get("files"):
            records.append(cur)
            cur = None
        if not line:
            in_files = False
            continue
        if field:
            cur = cur or {"files": []}
            name, value = field.group(1).lower(), field.group(2).strip()
            in_files = name == "files"
            if name == "files":
                cur["files"] += value.split()
            else:
                cur[name] = value
        elif cur is not None and (in_files or re.match(r"^[\w./*-]+\.\w+$", line)):
            cur["files"] += line.split()  # some blocks list their files without a "Files:" line
    if cur and cur.get("files"):
        records.append(cur)
    return records


def licence_for(image):
    """Finds the README block that names this file, walking up from its folder."""
    folder = os.path.dirname(image)
    while os.path.basename(folder) not in ("activities", ""):
        readme = os.path.join(folder, "README")
        if os.path.exists(readme):
            rel = os.path.relpath(image, folder)
            for rec in readme_records(readme):
                if any(fnmatch.fnmatch(rel, f) for f in rec["files"]):
                    return rec
        folder = os.path.dirname(folder)
    return None


def photos(cache):
    pairs = prepare_data.gcompris_pairs(os.path.join(cache, "deb"), cache)
    items, seen, missing = [], set(), []
    for p in pairs:
        rec = licence_for(p["file"])
        licence = LICENCES.get((rec or {}).get("license", "").lower())
        if not licence:
            missing.append(p["file"])
            continue
        activity = p["source"].split("/")[1]
        stem = os.path.basename(p["file"])[:-5]
        key = "ph-" + re.sub(r"[^a-z0-9]+", "-", f"{activity.replace('explore_', '')}-{stem}".lower()).strip("-")
        if key in seen:
            continue
        seen.add(key)
        title = p["captions"][0]
        topic = PHOTO_TOPIC[activity] or CATEGORY_TOPIC[os.path.basename(os.path.dirname(p["file"]))]
        author = re.sub(r"^\d{4}(,\s*\d{4})*\s*", "", rec.get("copyright", "")).strip() or None
        comment = rec.get("comment", "")
        if author and comment.lower().startswith("based on"):  # derivatives credit the original's author too
            author += "; " + re.split(r",\s*source at", comment)[0]
        url = rec.get("source") or (re.search(r"https?://\S+", comment).group(0) if re.search(r"https?://\S+", comment) else None)
        described = p["captions"][2] if len(p["captions"]) > 2 and not p["captions"][2].startswith("a photo of") else None
        alt = f"Photo: {title}" + (f". {described}" if described else "")
        items.append({"key": key, "src": p["file"], "kind": "photo", "alt": alt, "label": title,
                      "keywords": [c for c in p["captions"][3:] if len(c.split()) <= 3][:6], "topic": topic,
                      "source": f"gcompris-qt-data 3.1-2 (Debian), activity {activity}", "author": author, "licence": licence,
                      "sourceUrl": url})
    return items, missing


def scenes(sticker_items, n, seed):
    rng = random.Random(seed)
    by_topic = {}
    for s in sticker_items:
        if SCENE_SUBGROUPS_OK.search(s["subgroup"]):
            by_topic.setdefault(s["topic"], []).append(s)
    items = []
    for i in range(n):
        bg = sorted(SCENE_TOPICS)[i % len(SCENE_TOPICS)]
        topic = rng.choice([t for t in SCENE_TOPICS[bg] if t in by_topic])
        count = rng.choice([1, 2, 2, 3])
        chosen = []
        for _ in range(count):
            pool = by_topic[topic] if rng.random() < 0.8 else by_topic[rng.choice([t for t in SCENE_TOPICS[bg] if t in by_topic])]
            s = rng.choice(pool)
            if s not in chosen:
                chosen.append(s)
        graph = []
        for s in chosen:
            size = rng.uniform(0.28, 0.5)
            graph.append({"label": s["label"], "fluent": s["src"], "size": size, "x": rng.uniform(0, 1 - size), "y": rng.uniform(0.3, 1 - size)})
        graph.sort(key=lambda it: it["x"])
        where = rng.choice(prepare_data.BACKGROUNDS[bg])
        names = [prepare_data.article(it["label"]) for it in graph]
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        label = f"{listed} {where}"
        items.append({"key": f"sc-{i:04d}", "kind": "scene", "scene": {"background": bg, "items": graph}, "alt": f"Drawing of {label}",
                      "label": label, "keywords": [s["label"] for s in chosen] + [bg], "topic": topic,
                      "source": "rendered by this project (models/scripts/pool/build_media.py) from Fluent Emoji 3D stickers",
                      "author": "this project; stickers by Microsoft", "licence": "MIT", "sourceUrl": "https://github.com/microsoft/fluentui-emoji"})
    return items


def write_image(item, out_dir, scene_rng):
    path = os.path.join(out_dir, item["key"] + ".webp")
    if item["kind"] == "sticker":
        shutil.copyfile(item["src"], path)  # already 256x256 WebP with alpha: keep the original bytes
        with Image.open(path) as img:
            return img.size
    if item["kind"] == "scene":
        img = render_scene(item["scene"], scene_rng, size=SCENE_SIZE)
    else:
        img = Image.open(item["src"]).convert("RGB")
        scale = MAX_SIDE / max(img.size)
        if scale < 1:
            img = img.resize((max(1, round(img.width * scale)), max(1, round(img.height * scale))), Image.LANCZOS)
    buf = io.BytesIO()
    img.save(buf, "WEBP", quality=80, method=6)
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    return img.size


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default=os.path.join(ROOT, "models", ".cache", "mini-clip"))
    ap.add_argument("--out", default=os.path.join(ROOT, "public", "pool"))
    ap.add_argument("--scenes", type=int, default=360)
    args = ap.parse_args()
    sticker_items = stickers(os.path.join(args.cache, "npm"))
    photo_items, missing = photos(args.cache)
    scene_items = scenes(sticker_items, args.scenes, SEED)
    media_dir = os.path.join(args.out, "media")
    shutil.rmtree(media_dir, ignore_errors=True)
    os.makedirs(media_dir)
    scene_rng = np.random.default_rng(SEED)
    catalogue = []
    for item in sticker_items + photo_items + scene_items:
        width, height = write_image(item, media_dir, scene_rng)
        digest = hashlib.sha256(open(os.path.join(media_dir, item["key"] + ".webp"), "rb").read()).hexdigest()
        record = {"key": item["key"], "file": f"media/{item['key']}.webp", "sha256": digest, "kind": item["kind"], "width": width, "height": height,
                  "alt": item["alt"], "label": item["label"], "topic": item["topic"], "keywords": item["keywords"],
                  "source": item["source"], "author": item["author"], "licence": item["licence"], "sourceUrl": item["sourceUrl"]}
        catalogue.append({k: v for k, v in record.items() if v is not None})
    with open(os.path.join(args.out, "media.json"), "w", encoding="utf-8") as f:
        f.write('{"version": 1, "items": [\n' + ",\n".join(json.dumps(r, ensure_ascii=False) for r in catalogue) + "\n]}\n")
    from collections import Counter
    print(f"{len(catalogue)} images: " + ", ".join(f"{k} {v}" for k, v in Counter(r['kind'] for r in catalogue).items()))
    print("by licence: " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(r['licence'] for r in catalogue).items())))
    print("by topic: " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(r['topic'] for r in catalogue).items())))
    size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(media_dir, "*")))
    print(f"{size / 1e6:.1f} MB of WebP in {media_dir}")
    if missing:
        print(f"left out {len(missing)} photos with no licence record: " + ", ".join(os.path.basename(m) for m in missing[:10]))


if __name__ == "__main__":
    main()
