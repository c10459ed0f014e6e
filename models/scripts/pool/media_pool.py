"""The image pool as write_dialogues.py sees it: which media show which concept of which category."""
import re
from collections import Counter, defaultdict

from grammar import norm


def scene_parts(label, keywords, templates):
    """Objects and background of a rendered scene from its label ("a dog and a ball on the beach")."""
    n = ", ".join(p for p in (norm(x) for x in label.split(",")) if p)
    bg = None
    for phrase, b in templates.background_phrases:
        if n.endswith(" " + phrase):
            bg, n = b, n[: -len(phrase) - 1]
            break
    if bg is None:
        for k in keywords:
            if norm(k) in templates.backgrounds:
                bg = norm(k)
    objs = [re.sub(r"^(a|an|the|some|two|three) ", "", o).strip() for o in re.split(r" and |, ", n)]
    return [o for o in objs if o], bg


def phrase_in(p, text):
    return (" " + p + " ") in (" " + text + " ")


class Pool:
    """The items of media.json, with their labels normalised, and how often a dialogue has used each."""

    def __init__(self, items, templates):
        self.items = items
        self.templates = templates
        self.by_key = {it["key"]: it for it in items}
        for it in items:
            it["_n"] = norm(it.get("label", ""))
            it["_head"] = norm(it.get("label", "").split(",")[0])
            it["_kw"] = [norm(k) for k in it.get("keywords", [])]
            if it["kind"] == "scene":
                it["_objs"], it["_bg"] = scene_parts(it.get("label", ""), it.get("keywords", []), templates)
        self.stickers_by_label = defaultdict(list)
        for it in items:
            if it["kind"] == "sticker":
                self.stickers_by_label[it["_n"]].append(it["key"])
        self.uses = Counter()

    def matches(self, it, concept):
        """Does item show the concept? A scene does if one of its objects does."""
        if it["kind"] == "scene":
            texts = it["_objs"]
        elif it["kind"] == "photo":
            texts = [it["_head"]]
        else:
            texts = [it["_n"]]
        for text in texts:
            if any(phrase_in(x, text) for x in concept.get("not", [])):
                continue
            if any(phrase_in(p, text) for p in concept["match"]):
                if concept.get("kinds") and it["kind"] not in concept["kinds"]:
                    continue
                if it["kind"] == "sticker" and it.get("topic") == "feelings" and not concept.get("feelings_ok"):
                    continue
                return True
        return False

    def stickers_labelled(self, labels):
        keys = []
        for lab in labels:
            keys += self.stickers_by_label.get(norm(lab), [])
        return keys

    def stickers_for(self, mood):
        return self.stickers_labelled(self.templates.stickers[mood])

    def pick(self, rng, keys, avoid=()):
        keys = [k for k in keys if k not in avoid] or list(keys)
        if not keys:
            return None
        low = min(self.uses[k] for k in keys)
        # prefer the less used, but not strictly: spread over the pool without making the order predictable
        cand = [k for k in keys if self.uses[k] <= low + 1]
        k = rng.choice(cand)
        self.uses[k] += 1
        return k


class Catalog:
    """Which media show which concept of which category."""

    def __init__(self, pool, templates):
        self.pool = pool
        self.templates = templates
        self.concept_media = {}
        for cname, cat in templates.categories.items():
            for cid, concept in cat["concepts"].items():
                self.concept_media[(cname, cid)] = [it["key"] for it in pool.items if pool.matches(it, concept)
                                                    and (it["kind"] != "scene" or self.scene_fits(it, cat, concept))]

    def scene_fits(self, it, cat, concept):
        """A rendered scene stands for the concept when its background suits the concept and every other object
        in it is something that goes with it (the category's extras, or its other concepts where they may mix)."""
        if it["_bg"] not in (concept.get("bgs") or cat.get("backgrounds", self.templates.backgrounds)):
            return False
        allowed = [concept, {"match": [norm(x) for x in cat.get("scene_extra", [])]}]
        if cat.get("scene_mix"):
            allowed += list(cat["concepts"].values())
        for o in it["_objs"]:
            ok = any(phrase_in(p, o) and not any(phrase_in(x, o) for x in c.get("not", []))
                     for c in allowed for p in c["match"])
            if not ok:
                return False
        return True

    def media(self, cname, cid, kinds=None):
        keys = self.concept_media.get((cname, cid), [])
        if kinds:
            keys = [k for k in keys if self.pool.by_key[k]["kind"] in kinds]
        return keys

    def has_media(self, cname):
        return any(self.media(cname, c) for c in self.templates.categories[cname]["concepts"])
