#!/usr/bin/python3
"""Writes the candidate text pool and the reference dialogues of the demo, in MMDialog's format.

    /usr/bin/python3 models/scripts/pool/write_dialogues.py [--media public/pool/media.json] [--seed N]

Reads the image pool catalogue (public/pool/media.json) and only ever uses keys from it. All text comes
from the hand-written template grammars and sentences under templates/ (written for this project, CC0;
see templates.py); nothing is read from ../shared/data. Standard library only; the output is
byte-identical for a fixed seed.

Writes
  public/pool/texts.json                          candidate texts: "written" (grammar + hand-written lines)
                                                  then the texts of the train dialogues ("dialogue-train")
  public/dialogues/{train,valid,test}/conversations.json
                                                  MMDialog records; valid/test carry 999 negative media keys
                                                  and 999 negative texts each

The parts: grammar.py (the template syntax: [a|b] alternatives, {slot}s, {e:mood} emoji), templates.py (the
data), media_pool.py (which pictures show which concept), subjects.py (a dialogue's subject and context),
dialogue.py (one conversation: its flow, lines and pictures, and the state a build shares between dialogues).
"""
import argparse
import hashlib
import json
import os
import random
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dialogue import BuildState, Dialogue  # noqa: E402
from grammar import Grammar, Missing, held_out, norm, only_for, split_tags, text_key, tidy  # noqa: E402
from media_pool import Catalog, Pool  # noqa: E402
from subjects import concept_slots, make_ctx  # noqa: E402
from templates import load_templates  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
SEED = 20231
SPLITS = (("train", 3500), ("valid", 200), ("test", 200))
N_NEG = 999
MIN_WRITTEN = 3200


# ----------------------------------------------------------------------------------------------- the pool of texts

class WrittenPool:
    """Candidate texts from the grammars, each new one kept once with its topic, in the order first written."""

    def __init__(self, rng, grammar):
        self.rng = rng
        self.grammar = grammar
        self.texts = []  # (text, topic)
        self.seen = set()

    def put(self, s, topic):
        s = tidy(s)
        # A held-out key belongs to valid/test only, so the pool never holds a valid or test response.
        if s and s not in self.seen and len(s) <= 280 and not held_out(s):
            self.seen.add(s)
            self.texts.append((s, topic))

    def realise(self, template, ctx, topic):
        try:
            self.put(self.grammar.expand(split_tags(template)[1], ctx, self.rng), topic)
        except Missing:
            pass


def category_templates(cat):
    """Every template of a category that a dialogue may say."""
    templates = []
    for key in ("share", "news", "open", "open_a", "request", "more", "more_other", "own", "suggest", "close",
                "react_back", "accept", "close_reply", "news_react"):
        templates += cat.get(key, [])
    for d in cat.get("react", {}).values():
        templates += d
    for bname in ("q", "qs"):
        for q in cat.get(bname, {}).values():
            templates += q["q"] + q["a"]
    return templates


def written_pool(rng, templates, grammar, catalog):
    """Candidate texts from the grammars: every template of every category, filled with random subjects,
    at most a few realisations per template, plus the small-talk grammar and the hand-written lines."""
    pool = WrittenPool(rng, grammar)
    for topic, text in templates.handwritten:
        pool.put(text, topic)
    for g in templates.pool_grammar:
        for t in g["frames"]:
            for _ in range(g["per"]):
                pool.realise(t, dict(templates.common_slots_one(rng)), g["topic"])
    generic = [("feelings", templates.react), ("feelings", templates.ack), ("feelings", templates.react_back),
               ("small-talk", {"x": templates.accept + templates.close + templates.greetings}), ("small-talk", templates.close_reply),
               ("small-talk", {"x": templates.request + templates.request_news + templates.more + templates.more_two
                               + templates.more_unprompted + templates.news_react}),
               ("feelings", templates.ack_own)]
    for topic, d in generic:
        for lines in d.values():
            for t in lines:
                for _ in range(3):
                    pool.realise(t, dict(templates.common_slots_one(rng)), topic)
    places = sorted(set(templates.where.values()))
    for cname, cat in templates.categories.items():
        cids = [c for c in cat["concepts"] if catalog.media(cname, c)] or list(cat["concepts"])
        for t in category_templates(cat):
            only = only_for(split_tags(t)[0])
            tcids = [c for c in cids if c in only] if only else cids
            if not tcids:
                continue
            for _ in range(cat.get("pool_per", 3)):
                concept = cat["concepts"][rng.choice(tcids)]
                ctx = make_ctx(templates, rng, cat, concept)
                oc = cat["concepts"][rng.choice(cids)]
                ctx.update(concept_slots(oc, "other"))
                if "where" not in ctx:
                    ctx["where"] = rng.choice(places)
                pool.realise(t, ctx, cat["topic"])
    return pool.texts


# ----------------------------------------------------------------------------------------------- the dialogues

def plan_dialogues(templates, catalog, rng):
    """The category of every dialogue, spread by weight, and its split: every 9th to valid and the next to test."""
    cats = []
    for cname in templates.categories:
        if not catalog.has_media(cname):
            print(f"warning: no media for category {cname}; skipped", file=sys.stderr)
            continue
        cats.append(cname)
    total = sum(n for _, n in SPLITS)
    weights = [templates.categories[c].get("weight", 1.0) for c in cats]
    plan = []
    acc = [0.0] * len(cats)
    for i in range(total):  # deterministic weighted round robin
        for j, w in enumerate(weights):
            acc[j] += w
        j = max(range(len(cats)), key=lambda j: acc[j])
        acc[j] -= sum(weights)
        plan.append(cats[j])
    rng.shuffle(plan)
    # Valid and test spread evenly over the plan (so over categories), each at its share of SPLITS.
    split_of, owed = [], {name: 0.0 for name, _ in SPLITS}
    for i in range(total):
        for name, n in SPLITS:
            owed[name] += n / total
        name = max((name for name, _ in SPLITS), key=lambda name: (owed[name], name != "train"))
        owed[name] -= 1
        split_of.append(name)
    return plan, split_of


LENGTHS = [3, 4, 5, 6, 7, 8]
LENGTH_WEIGHTS = [0.14, 0.22, 0.22, 0.18, 0.13, 0.11]
FIRST_ID = {name: sum(n for _, n in SPLITS[:k]) for k, (name, _) in enumerate(SPLITS)}


def write_dialogue(templates, grammar, catalog, state, seed, i, cname, strict):
    """Dialogue i, tried again from the same state (up to 20 times) when a template cannot be filled."""
    drng = random.Random(f"{seed}-{i}")
    n_turns = drng.choices(LENGTHS, LENGTH_WEIGHTS)[0]
    for _ in range(20):
        snapshot = state.snapshot()
        d = Dialogue(drng, templates, grammar, catalog, state, cname, n_turns, strict)
        try:
            turns = d.run()
            break
        except Missing as e:
            state.restore(snapshot)
            last = e
    else:
        raise SystemExit(f"dialogue {i} ({cname}): {last}")
    state.stats.update(d.stats)
    return d, turns


def pool_texts(templates, written, records, meta):
    """texts.json: the written texts, then the train dialogue texts that are new."""
    texts = []
    for j, (t, topic) in enumerate(written):
        texts.append({"id": f"w{j + 1:05d}", "text": t, "topic": topic, "source": "written"})
    seen = set(t for t, _ in written)
    k = 0
    train_topic = {m["id"]: templates.categories[m["category"]]["topic"] for m in meta if m["split"] == "train"}
    for rec in records["train"]:
        for turn in rec["conversation"]:
            for el in turn["turn"]:
                t = el.get("__TEXT__")
                if t is not None and t not in seen:
                    seen.add(t)
                    k += 1
                    texts.append({"id": f"d{k:05d}", "text": t, "topic": train_topic[rec["conversation_id"]], "source": "dialogue-train"})
    return texts


def add_negatives(records, media_keys, written_texts, seed):
    """N_NEG negative media keys and texts for each valid and test dialogue, none of them its own."""
    for split in ("valid", "test"):
        for rec in records[split]:
            used_m = set(el["__MEDIA__"] for turn in rec["conversation"] for el in turn["turn"] if "__MEDIA__" in el)
            used_t = set(el["__TEXT__"] for turn in rec["conversation"] for el in turn["turn"] if "__TEXT__" in el)
            nrng = random.Random(f"{seed}-neg-{rec['conversation_id']}")
            mk = [k for k in media_keys if k not in used_m]
            used_n = set(norm(t) for t in used_t)
            tk = [t for t in written_texts if t not in used_t and norm(t) not in used_n]
            rec["negative_candidate_media_keys"] = nrng.sample(mk, min(N_NEG, len(mk)))
            rec["negative_candidate_texts"] = nrng.sample(tk, min(N_NEG, len(tk)))


def build(media_path, seed, templates):
    with open(media_path, encoding="utf-8") as f:
        items = json.load(f)["items"]
    grammar = Grammar(templates.emoji)
    pool = Pool(items, templates)
    catalog = Catalog(pool, templates)
    state = BuildState(pool)

    written = written_pool(random.Random(seed + 1), templates, grammar, catalog)
    if len(written) < MIN_WRITTEN:
        raise SystemExit(f"only {len(written)} written texts (need {MIN_WRITTEN})")
    written_set = set(t for t, _ in written)
    plan, split_of = plan_dialogues(templates, catalog, random.Random(seed))

    reg = state.registry
    records = {"train": [], "valid": [], "test": []}
    meta = []
    next_id = dict(FIRST_ID)
    # train first; then valid and test, whose texts must be new to the pool and to train
    for phase in ("train", "heldout"):
        if phase == "heldout":
            reg.forbidden = {text_key(t) for t in written_set | set(reg.used)}
            reg.held_out_side = True
            varied_train, reg.varied = reg.varied, 0
        for i, cname in enumerate(plan):
            split = split_of[i]
            if (split == "train") != (phase == "train"):
                continue
            d, turns = write_dialogue(templates, grammar, catalog, state, seed, i, cname, strict=split != "train")
            cid = next_id[split]
            next_id[split] += 1
            records[split].append({"conversation_id": cid, "conversation": turns})
            meta.append({"split": split, "id": cid, "category": cname, "subject": d.subject.cid, "flags": sorted(d.flags)})

    texts = pool_texts(templates, written, records, meta)
    add_negatives(records, [it["key"] for it in items], [t for t, _ in written], seed)
    return {"texts": texts, "records": records, "meta": meta, "pool": pool, "templates": templates,
            "varied": {"train": varied_train, "valid+test": reg.varied}, "stats": dict(state.stats)}


# ----------------------------------------------------------------------------------------------- main

def dump_records(recs):
    return "[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in recs) + "\n]\n"


def render(out):
    files = {}
    files["public/pool/texts.json"] = ('{"version": 1, "texts": [\n' + ",\n".join(json.dumps(t, ensure_ascii=False) for t in out["texts"])
                                        + "\n]}\n")
    for split, recs in out["records"].items():
        files[f"public/dialogues/{split}/conversations.json"] = dump_records(recs)
    return files


def summary(out, files):
    recs = out["records"]
    print("files:")
    for path, data in files.items():
        print(f"  {path}  {len(data.encode('utf-8')):,} bytes  sha1 {hashlib.sha1(data.encode('utf-8')).hexdigest()[:12]}")
    all_turns = 0
    img_turns = 0
    resp = Counter()
    n_text_el = Counter()
    two_img = 0
    img_pos = Counter()
    lens = Counter()
    for split, rs in recs.items():
        t = sum(len(r["conversation"]) for r in rs)
        print(f"{split}: {len(rs)} dialogues, {t} turns")
        for r in rs:
            lens[len(r["conversation"])] += 1
            for j, turn in enumerate(r["conversation"]):
                els = turn["turn"]
                has_i = any("__MEDIA__" in e for e in els)
                has_t = any("__TEXT__" in e for e in els)
                all_turns += 1
                img_turns += has_i
                if sum("__MEDIA__" in e for e in els) >= 2:
                    two_img += 1
                if has_i and has_t:
                    first = "__MEDIA__" in els[0]
                    last = "__MEDIA__" in els[-1]
                    img_pos["before" if first and not last else "after" if last and not first else "between/both"] += 1
                if j > 0:
                    resp["both" if has_i and has_t else "image" if has_i else "text"] += 1
                for e in els:
                    if "__TEXT__" in e:
                        n_text_el[e["__TEXT__"]] += 1
    print(f"turns per dialogue: {dict(sorted(lens.items()))}")
    print(f"turns with an image: {img_turns}/{all_turns} = {100 * img_turns / all_turns:.1f}%  (2+ images: {two_img}; image position in mixed turns: {dict(img_pos)})")
    rt = sum(resp.values())
    print("responses (turns after the first): " + ", ".join(f"{k} {v} ({100 * v / rt:.1f}%)" for k, v in sorted(resp.items())))
    dup = {t: c for t, c in n_text_el.items() if c > 1}
    print(f"text elements in dialogues: {sum(n_text_el.values())}, distinct {len(n_text_el)}, texts used more than once: {len(dup)}")
    if dup:
        print("   " + "; ".join(f"{t!r} x{c}" for t, c in sorted(dup.items(), key=lambda x: -x[1])[:12]))
    print(f"texts re-typed to be new (case, punctuation, stretched word): {out['varied']}")
    src = Counter(t["source"] for t in out["texts"])
    print(f"texts.json: {len(out['texts'])} texts: " + ", ".join(f"{k} {v}" for k, v in src.items()))
    by_topic = defaultdict(Counter)
    for t in out["texts"]:
        by_topic[t["topic"]][t["source"]] += 1
    for topic in sorted(by_topic):
        print(f"   {topic:13s} " + ", ".join(f"{k} {v}" for k, v in sorted(by_topic[topic].items())))
    cats = Counter((m["category"]) for m in out["meta"])
    print("dialogues by category: " + ", ".join(f"{k} {v}" for k, v in sorted(cats.items())))
    topics = Counter(out["templates"].categories[m["category"]]["topic"] for m in out["meta"])
    print("dialogues by topic: " + ", ".join(f"{k} {v}" for k, v in sorted(topics.items())))
    print(f"dialogues with a topic drift: {sum('drift' in m['flags'] for m in out['meta'])}")
    print("requests for pictures: " + ", ".join(f"{k} {v}" for k, v in out["stats"].items()))
    media = Counter(el["__MEDIA__"] for rs in recs.values() for r in rs for t in r["conversation"] for el in t["turn"] if "__MEDIA__" in el)
    kinds = Counter(out["pool"].by_key[k]["kind"] for k in media.elements())
    print(f"media in dialogues: {sum(media.values())} uses of {len(media)} distinct keys; by kind: {dict(kinds)}")
    # the rules valid/test must keep
    train_texts = set(text_key(e["__TEXT__"]) for r in recs["train"] for t in r["conversation"] for e in t["turn"] if "__TEXT__" in e)
    pool_texts = set(text_key(t["text"]) for t in out["texts"])
    bad = 0
    for split in ("valid", "test"):
        for r in recs[split]:
            for t in r["conversation"]:
                for e in t["turn"]:
                    if "__TEXT__" in e and (text_key(e["__TEXT__"]) in train_texts or text_key(e["__TEXT__"]) in pool_texts):
                        bad += 1
    print(f"valid/test texts found in train dialogues or texts.json, in any re-typing (grammar.text_key): {bad}")


def describe(rec, pool):
    lines = []
    for j, turn in enumerate(rec["conversation"]):
        bits = []
        for e in turn["turn"]:
            if "__TEXT__" in e:
                bits.append(e["__TEXT__"])
            else:
                it = pool.by_key[e["__MEDIA__"]]
                bits.append(f"[{it['kind']}: {it.get('label', '')}]")
        lines.append(("A: " if j % 2 == 0 else "B: ") + " ".join(bits))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--media", default=os.path.join(ROOT, "public/pool/media.json"))
    ap.add_argument("--out", default=ROOT, help="root under which public/... is written")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--show", type=int, default=0, help="print this many dialogues (for reading)")
    ap.add_argument("--show-split", default="train")
    args = ap.parse_args()
    templates = load_templates()
    out = build(args.media, args.seed, templates)
    files = render(out)
    again = render(build(args.media, args.seed, templates))
    same = all(again[p] == files[p] for p in files)
    for path, data in files.items():
        full = os.path.join(args.out, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(data)
    summary(out, files)
    print(f"deterministic: a second build in this run gives byte-identical files: {'yes' if same else 'NO'}")
    if args.show:
        meta = {(m["split"], m["id"]): m for m in out["meta"]}
        for rec in out["records"][args.show_split][: args.show]:
            m = meta[(args.show_split, rec["conversation_id"])]
            print(f"\n--- {args.show_split} {rec['conversation_id']} ({m['category']}: {m['subject']}{' drift' if m['flags'] else ''})")
            print(describe(rec, out["pool"]))
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
