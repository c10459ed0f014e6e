"""Builds mini-clip's image-text pairs from openly licensed packages (see models/mini-clip/DATA.md):
emoji images with their CLDR names and keywords, GCompris photos with titles and descriptions, scene
graphs for synthetic scenes (drawn by render_scenes.py), and the sources of sources_v2.py (openclipart
drawings, Tux Paint stamps, Art4Apps cartoons, more photos). The photos of own_photos.json (our own
captioned real photos, used to choose the epoch) are forced into the held-out split. Writes
<cache>/pairs.json. Never reads ../shared/data (evaluation-only)."""
import argparse
import glob
import hashlib
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
import rcc  # noqa: E402
import sources_v2  # noqa: E402

SEED = 1234
HELDOUT_PERCENT = 10
EMOJI_GROUPS_KEPT = {0, 1, 3, 4, 5, 6, 7}  # emojibase groups: smileys, people, animals, food, travel, activities, objects
SCENE_GROUPS = {3, 4, 5, 6, 7}  # things that can stand in a scene


def split_of(key):
    h = int(hashlib.sha1(key.encode()).hexdigest()[:8], 16)
    return "heldout" if h % 100 < HELDOUT_PERCENT else "train"


def norm_hex(code):
    """Join key for emoji code points: upper case, no FE0F, no leading zeros."""
    parts = [p for p in re.split(r"[-_ ]", code.upper()) if p and p != "FE0F"]
    return "-".join(format(int(p, 16), "X") for p in parts)


def article(phrase):
    return ("an " if phrase[:1].lower() in "aeiou" else "a ") + phrase


def emoji_captions(label, tags):
    label = label.replace(":", "").strip()
    caps = [label, article(label), f"a picture of {article(label)}"]
    caps += [t for t in tags if t not in caps][:8]
    return caps


def emoji_pairs(npm):
    base = os.path.join(npm, "node_modules")
    emojibase = json.load(open(os.path.join(base, "emojibase-data", "en", "data.json")))
    by_hex = {norm_hex(e["hexcode"]): e for e in emojibase if "group" in e}
    google = json.load(open(os.path.join(base, "emoji-datasource-google", "emoji.json")))
    fluent_dir = os.path.join(base, "@lobehub", "fluent-emoji-3d", "assets")
    fluent = {}
    for path in sorted(glob.glob(os.path.join(fluent_dir, "*.webp"))):
        fluent.setdefault(norm_hex(os.path.basename(path)[:-5]), path)
    pairs, concepts = [], []
    for g in google:
        e = by_hex.get(norm_hex(g["unified"]))
        if not e or e["group"] not in EMOJI_GROUPS_KEPT:
            continue
        key = norm_hex(g["unified"])
        caps = emoji_captions(e["label"], e.get("tags", []))
        split = split_of("emoji:" + key)
        concepts.append({"key": key, "label": e["label"], "group": e["group"], "split": split, "fluent": fluent.get(key)})
        pairs.append({"id": f"google-{key}", "source": "emoji-datasource-google", "file": os.path.join(base, "emoji-datasource-google", "img", "google", "64", g["image"]),
                      "captions": caps, "split": split, "kind": "emoji", "licence": "Apache-2.0 (Noto Emoji images)"})
        if key in fluent:
            pairs.append({"id": f"fluent-{key}", "source": "@lobehub/fluent-emoji-3d", "file": fluent[key], "captions": caps, "split": split,
                          "kind": "emoji", "licence": "MIT (Microsoft Fluent Emoji)"})
    return pairs, concepts


def qml_field(obj, key):
    m = re.search(r'"%s"\s*:\s*(?:qsTr\()?"((?:[^"\\]|\\.)*)"' % key, obj)
    return m.group(1).replace('\\"', '"') if m else None


def sentences(text, n):
    parts = re.split(r"(?<=[.!?])\s+", re.sub(r"\s+", " ", text or "").strip())
    return [p for p in parts if 3 <= len(p.split()) <= 40][:n]


def words_from_stem(stem):
    stem = re.sub(r"\d+$", "", stem)
    stem = re.sub(r"([a-z])([A-Z])", r"\1 \2", stem).replace("_", " ").replace("-", " ")
    return stem.lower().strip()


def gcompris_pairs(deb, work):
    rcc_dir = os.path.join(deb, "gcompris-qt-data", "usr", "share", "gcompris-qt", "rcc")
    out = os.path.join(work, "gcompris")
    wanted = ("explore_monuments", "explore_world_animals", "explore_farm_animals", "explore_world_music", "details", "erase", "categorization")
    if not os.path.isdir(os.path.join(out, "gcompris")):
        for path in sorted(glob.glob(os.path.join(rcc_dir, "*.rcc"))):
            if os.path.basename(path).split(".")[0] in wanted:
                rcc.extract(path, out)
    root = os.path.join(out, "gcompris", "src", "activities")
    pairs = []
    lic = "GCompris data (per-file licences in the activity's resource/README: mostly public domain or CC0, some CC BY-SA)"
    obj_re = re.compile(r'\{[^{}]*"image2"[^{}]*\}', re.S)
    for act in wanted[:4]:
        for board in sorted(glob.glob(os.path.join(root, act, "resource", "board", "*.qml"))):
            for obj in obj_re.findall(open(board, encoding="utf-8").read()):
                image = qml_field(obj, "image2").replace("qrc:/gcompris/src/activities/", root + "/")
                title = qml_field(obj, "title") or ""
                if not os.path.exists(image) or not title:
                    continue
                caps = [title, f"a photo of {title}"] + sentences(qml_field(obj, "text"), 3)
                pairs.append({"id": "gc-" + os.path.relpath(image, root), "source": f"gcompris-qt-data/{act}", "file": image, "captions": caps,
                              "split": split_of("gc:" + image), "kind": "photo", "licence": lic})
    for board in sorted(glob.glob(os.path.join(root, "details", "resource", "board", "*.qml"))):
        text = open(board, encoding="utf-8").read()
        ins = re.search(r'instruction:\s*qsTr\("((?:[^"\\]|\\.)*)"', text)
        bg = re.search(r'"pixmapfile"\s*:\s*"([^"]*_background\.webp)"', text)
        if ins and bg:
            image = os.path.join(root, "details", "resource", bg.group(1))
            if os.path.exists(image):
                pairs.append({"id": "gc-details-" + os.path.basename(image), "source": "gcompris-qt-data/details", "file": image,
                              "captions": [ins.group(1), "a photo of " + ins.group(1)], "split": split_of("gc:" + image), "kind": "photo", "licence": lic})
    for image in sorted(glob.glob(os.path.join(root, "erase", "resource", "*.webp"))):
        name = words_from_stem(os.path.basename(image)[:-5])
        pairs.append({"id": "gc-erase-" + name, "source": "gcompris-qt-data/erase", "file": image, "captions": [name, article(name), "a photo of " + article(name)],
                      "split": split_of("gc:" + image), "kind": "photo", "licence": lic})
    category_words = {"tools": "a tool", "fishes": "a fish", "monuments": "a monument", "others": None, "renewable": "renewable energy"}
    for cat, cat_caption in category_words.items():
        for image in sorted(glob.glob(os.path.join(root, "categorization", "resource", "images", cat, "*.webp"))):
            name = words_from_stem(os.path.basename(image)[:-5])
            caps = [name, article(name), "a photo of " + article(name)] + ([cat_caption] if cat_caption else [])
            pairs.append({"id": "gc-cat-" + os.path.basename(image), "source": "gcompris-qt-data/categorization", "file": image, "captions": caps,
                          "split": split_of("gc:" + image), "kind": "photo", "licence": lic})
    return pairs


BACKGROUNDS = {
    "grass": ["on the grass", "in a field", "in the park"],
    "beach": ["on the beach", "by the sea"],
    "snow": ["in the snow"],
    "table": ["on a table", "on a wooden table"],
    "sky": ["in the sky"],
    "water": ["in the water"],
    "room": ["in a room", "indoors"],
    "street": ["on the street", "in the city"],
}


def scene_graphs(concepts, n, seed):
    """Random scenes of 1-3 Fluent emoji on a background; captions come from the graph."""
    rng = random.Random(seed)
    objects = [c for c in concepts if c["group"] in SCENE_GROUPS and c["fluent"]]
    scenes = []
    for i in range(n):
        bg = rng.choice(sorted(BACKGROUNDS))
        count = rng.choice([1, 1, 2, 2, 3])
        pool = [o for o in objects if o["split"] == ("heldout" if i % 10 == 0 else "train")]
        items = []
        for _ in range(count):
            o = rng.choice(pool)
            size = rng.uniform(0.25, 0.55)
            items.append({"key": o["key"], "label": o["label"], "fluent": o["fluent"], "size": size,
                          "x": rng.uniform(0, 1 - size), "y": rng.uniform(0.25, 1 - size)})
        items.sort(key=lambda it: it["x"])
        where = rng.choice(BACKGROUNDS[bg])
        names = [article(it["label"]) for it in items]
        if count == 1:
            caps = [f"{names[0]} {where}", names[0], f"a picture of {names[0]} {where}"]
        elif count == 2:
            caps = [f"{names[0]} and {names[1]} {where}", f"{names[0]} to the left of {names[1]}", f"{names[1]} to the right of {names[0]}", f"{names[0]} next to {names[1]}"]
        else:
            caps = [f"{names[0]}, {names[1]} and {names[2]} {where}", f"{names[0]} and {names[1]} and {names[2]}"]
        scenes.append({"id": f"scene-{i}", "source": "synthetic scene", "background": bg, "items": items, "captions": caps,
                       "split": "heldout" if i % 10 == 0 else "train", "kind": "scene", "licence": "MIT (rendered by this project from Fluent Emoji 3D, MIT)"})
    return scenes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", required=True)
    ap.add_argument("--scenes", type=int, default=6000)
    args = ap.parse_args()
    npm = os.path.join(args.cache, "npm")
    emoji, concepts = emoji_pairs(npm)
    photos = gcompris_pairs(os.path.join(args.cache, "deb"), args.cache)
    scenes = scene_graphs(concepts, args.scenes, SEED)
    from collections import Counter
    stats = Counter()
    extra = sources_v2.all_pairs(args.cache, stats, include_own=True)
    pairs = emoji + photos + scenes + extra
    forced = sources_v2.force_heldout(pairs)
    print(f"own photos and e2e photos forced into the held-out split: {forced}")
    with open(os.path.join(args.cache, "pairs.json"), "w") as f:
        json.dump(pairs, f)
    counts = Counter((p["source"], p["split"]) for p in pairs)
    for (source, split), n in sorted(counts.items()):
        print(f"{source:40s} {split:8s} {n}")
    print(f"total {len(pairs)} pairs, {sum(len(p['captions']) for p in pairs)} captions")


if __name__ == "__main__":
    main()
