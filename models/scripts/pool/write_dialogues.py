#!/usr/bin/python3
"""Writes the candidate text pool and the reference dialogues of the demo, in MMDialog's format.

    /usr/bin/python3 models/scripts/pool/write_dialogues.py [--media public/pool/media.json] [--seed N]

Reads the image pool catalogue (public/pool/media.json) and only ever uses keys from it. All text comes
from the hand-written template grammars and sentences in bank.py (written for this project, CC0); nothing
is read from ../shared/data. Standard library only; the output is byte-identical for a fixed seed.

Writes
  public/pool/texts.json                          candidate texts: "written" (grammar + hand-written lines)
                                                  then the texts of the train dialogues ("dialogue-train")
  public/dialogues/{train,valid,test}/conversations.json
                                                  MMDialog records; valid/test carry 999 negative media keys
                                                  and 999 negative texts each

Template syntax (bank.py): [a|b|c] picks one alternative (nested; [a|] is optional text), {slot} fills a
slot of the dialogue's context ({^slot} capitalises it), {e:mood} is an emoji code in MMDialog's style
(:thumbs_up:) about half of the time. A template whose slot is missing from the context is not used.
Leading tags on answers and asides: <pos> <neg> <fun> <neu> (mood of the line, chooses the reply to it),
<img> (comes with another picture of the subject), <food> (with a sticker of the local food),
<stk:mood> (often with a sticker of that mood), <other> (with a picture of the speaker's own thing).
"""
import argparse
import hashlib
import json
import os
import re
import sys
import unicodedata
from collections import Counter, defaultdict
import random

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bank  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
SEED = 20231
SPLITS = (("train", 350), ("valid", 50), ("test", 50))
N_NEG = 999
MIN_WRITTEN = 3200
EMOJI_P = 0.5


# ----------------------------------------------------------------------------------------------- text utilities

def norm(s):
    s = unicodedata.normalize("NFKD", s)
    s = "".join(c for c in s if not unicodedata.combining(c))
    s = s.lower().replace("\u2019", "'").replace("'", "")
    return re.sub(r"[^a-z0-9]+", " ", s).strip()


def article(phrase):
    return ("an " if phrase[:1].lower() in "aeiou" else "a ") + phrase


class Missing(Exception):
    pass


def expand(t, ctx, rng):
    out = []
    i = 0
    n = len(t)
    while i < n:
        c = t[i]
        if c == "[":
            depth, j, start, parts = 0, i, i + 1, []
            while True:
                ch = t[j]
                if ch == "[":
                    depth += 1
                elif ch == "]":
                    depth -= 1
                    if depth == 0:
                        break
                elif ch == "|" and depth == 1:
                    parts.append(t[start:j])
                    start = j + 1
                j += 1
            parts.append(t[start:j])
            out.append(expand(rng.choice(parts), ctx, rng))
            i = j + 1
        elif c == "{":
            j = t.index("}", i)
            out.append(slot(t[i + 1:j], ctx, rng))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def slot(name, ctx, rng):
    if name.startswith("e:"):
        codes = bank.EMOJI[name[2:]]
        return " :" + rng.choice(codes) + ":" if rng.random() < EMOJI_P else ""
    cap = name.startswith("^")
    if cap:
        name = name[1:]
    if name not in ctx or ctx[name] is None:
        raise Missing(name)
    v = ctx[name]
    if isinstance(v, (list, tuple)):
        v = rng.choice(v)
    if "[" in v or "{" in v:
        v = expand(v, ctx, rng)
    ctx.setdefault("_used", set()).add(name)
    return v[:1].upper() + v[1:] if cap else v


def tidy(s):
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r" ([,.!?])", r"\1", s)
    s = re.sub(r"^[,.] *", "", s)
    s = re.sub(r"([!?]),", r"\1", s)
    s = s.replace(" :)", " :)")
    return s


TAG_RE = re.compile(r"^<([a-z]+(?::[a-z_,]+)?)>\s*")


def split_tags(t):
    tags = []
    while True:
        m = TAG_RE.match(t)
        if not m:
            return tags, t
        tags.append(m.group(1))
        t = t[m.end():]


# ----------------------------------------------------------------------------------------------- the image pool

def scene_parts(label, keywords):
    """Objects and background of a rendered scene from its label ("a dog and a ball on the beach")."""
    n = ", ".join(p for p in (norm(x) for x in label.split(",")) if p)
    bg = None
    for phrase, b in bank.BACKGROUND_PHRASES:
        if n.endswith(" " + phrase):
            bg, n = b, n[: -len(phrase) - 1]
            break
    if bg is None:
        for k in keywords:
            if norm(k) in bank.BACKGROUNDS:
                bg = norm(k)
    objs = [re.sub(r"^(a|an|the|some|two|three) ", "", o).strip() for o in re.split(r" and |, ", n)]
    return [o for o in objs if o], bg


class Pool:
    def __init__(self, items):
        self.items = items
        self.by_key = {it["key"]: it for it in items}
        for it in items:
            it["_n"] = norm(it.get("label", ""))
            it["_head"] = norm(it.get("label", "").split(",")[0])
            it["_kw"] = [norm(k) for k in it.get("keywords", [])]
            if it["kind"] == "scene":
                it["_objs"], it["_bg"] = scene_parts(it.get("label", ""), it.get("keywords", []))
        self.stickers_by_label = defaultdict(list)
        for it in items:
            if it["kind"] == "sticker":
                self.stickers_by_label[it["_n"]].append(it["key"])
        self.uses = Counter()

    @staticmethod
    def phrase_in(p, text):
        return (" " + p + " ") in (" " + text + " ")

    def matches(self, it, concept):
        """Does item show the concept? A scene does if one of its objects does."""
        if it["kind"] == "scene":
            texts = it["_objs"]
        elif it["kind"] == "photo":
            texts = [it["_head"]]
        else:
            texts = [it["_n"]]
        for text in texts:
            if any(self.phrase_in(x, text) for x in concept.get("not", [])):
                continue
            if any(self.phrase_in(p, text) for p in concept["match"]):
                if concept.get("kinds") and it["kind"] not in concept["kinds"]:
                    continue
                if it["kind"] == "sticker" and it.get("topic") == "feelings" and not concept.get("feelings_ok"):
                    continue
                return True
        return False

    def stickers_for(self, mood):
        keys = []
        for lab in bank.STICKERS[mood]:
            keys += self.stickers_by_label.get(norm(lab), [])
        return keys

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

    def __init__(self, pool):
        self.pool = pool
        self.concept_media = {}
        for cname, cat in bank.CATEGORIES.items():
            allc = cat["concepts"]
            for cid, concept in allc.items():
                keys = [it["key"] for it in pool.items if pool.matches(it, concept)]
                good = []
                for k in keys:
                    it = pool.by_key[k]
                    if it["kind"] == "scene" and not self.scene_fits(it, cat, concept):
                        continue
                    good.append(k)
                self.concept_media[(cname, cid)] = good

    def scene_fits(self, it, cat, concept):
        """A rendered scene stands for the concept when its background suits the concept and every other object
        in it is something that goes with it (the category's extras, or its other concepts where they may mix)."""
        if it["_bg"] not in (concept.get("bgs") or cat.get("backgrounds", bank.BACKGROUNDS)):
            return False
        allowed = [concept, {"match": [norm(x) for x in cat.get("scene_extra", [])]}]
        if cat.get("scene_mix"):
            allowed += list(cat["concepts"].values())
        for o in it["_objs"]:
            ok = any(self.pool.phrase_in(p, o) and not any(self.pool.phrase_in(x, o) for x in c.get("not", []))
                     for c in allowed for p in c["match"])
            if not ok:
                return False
        return True

    def media(self, cname, cid, kinds=None):
        keys = self.concept_media.get((cname, cid), [])
        if kinds:
            keys = [k for k in keys if self.pool.by_key[k]["kind"] in kinds]
        return keys


# ----------------------------------------------------------------------------------------------- texts in use

class Registry:
    """Every dialogue text so far; the texts a split must not use (pool and train texts for valid/test)."""

    def __init__(self):
        self.used = Counter()
        self.forbidden = set()
        self.dups = 0
        self.varied = 0

    def ok(self, s):
        return s not in self.forbidden and self.used[s] == 0

    def take(self, s):
        if self.used[s]:
            self.dups += 1
        self.used[s] += 1


# how people vary the same message when they type it: case, punctuation, stretched words
STRETCH = [("so", "soo"), ("omg", "omgg"), ("yes", "yess"), ("haha", "hahaha"), ("nice", "niice"), ("love", "loove"),
           ("ok", "okk"), ("aww", "awww"), ("no", "noo"), ("cute", "cuuute"), ("wow", "woww"), ("good", "goood"),
           ("thanks", "thanksss"), ("yay", "yayy"), ("ahh", "ahhh"), ("lol", "lool"), ("bye", "byee"), ("please", "pleasee")]


def vary(s, rng):
    """A variant of a message, as the same person might type it another time."""
    opts = []
    if s[:1].isalpha() and not s.startswith(("I ", "I'")) and not (len(s) > 1 and s[1].isupper()):
        opts.append(s[0].swapcase() + s[1:])
    if s.endswith("!!!"):
        opts.append(s[:-1])
    elif s.endswith("!!"):
        opts += [s[:-1], s + "!"]
    elif s.endswith("!"):
        opts.append(s + "!")
    elif s.endswith("?") and not s.endswith("??"):
        opts.append(s + "?")
    elif s.endswith("??"):
        opts.append(s[:-1])
    elif s[-1:].isalpha():
        first = s.split()[0].lower()
        opts.append(s + ("?" if first in ("do", "does", "did", "is", "are", "was", "were", "can", "what", "how", "who", "where", "when", "why") else "!"))
    for w, long in STRETCH:
        if re.search(r"\b%s\b" % w, s, flags=re.I):
            opts.append(re.sub(r"\b%s\b" % w, long, s, count=1, flags=re.I))
    if not opts:
        opts.append(s + " haha")
    return rng.choice(opts)


# ----------------------------------------------------------------------------------------------- one dialogue

class Dialogue:
    def __init__(self, rng, pool, catalog, reg, cname, n_turns, strict):
        self.rng, self.pool, self.catalog, self.reg = rng, pool, catalog, reg
        self.strict = strict  # valid/test: texts must be new
        self.n = n_turns
        self.turns = []
        self.media_used = []
        self.texts = []
        self.flags = set()
        self.used_tmpl = set()
        self.stats = Counter()
        self.set_subject(cname)

    # -- subject ------------------------------------------------------------------------------------------
    def set_subject(self, cname, avoid_concepts=()):
        rng = self.rng
        self.cname = cname
        self.cat = bank.CATEGORIES[cname]
        cands = [cid for cid in self.cat["concepts"] if self.catalog.media(cname, cid) and cid not in avoid_concepts]
        if not cands:
            raise RuntimeError("no media for category " + cname)
        low = min(SUBJECT_USES[(cname, c)] for c in cands)
        pick = rng.choice([c for c in cands if SUBJECT_USES[(cname, c)] <= low])
        SUBJECT_USES[(cname, pick)] += 1
        self.cid = pick
        self.concept = self.cat["concepts"][pick]
        others = [c for c in cands if c != pick]
        other = self.cat["concepts"][rng.choice(others)] if others else None
        self.ctx = make_ctx(rng, self.cat, self.concept, other)
        self.asked = set()
        self.done = Counter()
        self.share_sents = self.concept.get("sents") or self.cat["sents"]

    def subject_media(self, prefer_photo=True, avoid=()):
        keys = self.catalog.media(self.cname, self.cid)
        avoid = set(avoid) | set(self.media_used)
        keys = [k for k in keys if k not in avoid]
        if not keys:
            return None
        rich = [k for k in keys if self.pool.by_key[k]["kind"] in ("photo", "scene")]
        if prefer_photo and rich and self.rng.random() < 0.8:
            keys = rich
        return self.pool.pick(self.rng, keys)

    def other_media(self):
        """A picture of another concept of the same category (for <other> and 'and this one' turns)."""
        cands = [cid for cid in self.cat["concepts"] if cid != self.cid and self.catalog.media(self.cname, cid)]
        rel = self.concept.get("related")
        if rel:
            cands = [c for c in cands if c in rel] or cands
        elif self.cat.get("strict_related"):
            cands = []
        if not cands:
            return None, None
        cid = self.rng.choice(cands)
        keys = [k for k in self.catalog.media(self.cname, cid) if k not in self.media_used]
        if not keys:
            return None, None
        return self.pool.pick(self.rng, keys), self.cat["concepts"][cid]

    def use_media(self, k):
        if k:
            self.media_used.append(k)
        return k

    def sticker(self, mood):
        keys = []
        for lab in self.cat.get("stickers", {}).get(mood, []):
            keys += self.pool.stickers_by_label.get(norm(lab), [])
        keys = keys or self.pool.stickers_for(mood) or self.pool.stickers_for("approve")
        keys = [k for k in keys if k not in self.media_used] or keys
        if not keys:
            raise SystemExit(f"no reaction sticker for '{mood}' in the image pool")
        return self.use_media(self.pool.pick(self.rng, keys))

    # -- text ---------------------------------------------------------------------------------------------
    def say(self, templates, extra=None, tags_out=None):
        """One line from a list of templates, new to this split if possible."""
        rng = self.rng
        ctx = dict(self.ctx)
        if extra:
            ctx.update(extra)
        best = None
        for attempt in range(40):
            t = rng.choice(templates)
            if t in self.used_tmpl and attempt < 30:
                continue
            tags, body = split_tags(t)
            only = [x for x in tags if x.startswith("only:")]
            if only and self.cid not in only[0][5:].split(","):
                continue
            try:
                s = tidy(expand(body, ctx, rng))
            except Missing:
                continue
            if not s:
                continue
            if self.reg.ok(s) and s not in self.texts:
                best = (tags, s)
                self.used_tmpl.add(t)
                break
            if best is None:
                best = (tags, s)
        if best is None:
            raise Missing("no template fits " + repr(templates[:2]))
        tags, s = best
        if tags_out is not None:
            tags_out.extend(tags)
        return s

    def settle(self, s):
        """The final text of an element: new to the dialogues so far (and, for valid/test, to the pool and train),
        re-typed the way people re-type a message (case, punctuation, a stretched word) when it is not."""
        rng = self.rng
        if not self.reg.ok(s) or s in self.texts:
            for k in range(60):
                v = vary(s, rng)
                for _ in range(k // 20):
                    v = vary(v, rng)
                if self.reg.ok(v) and v not in self.texts:
                    VARIED_LOG.append((self.strict, s, v))
                    s = v
                    self.reg.varied += 1
                    break
            else:
                if self.strict:
                    raise Missing("cannot make a new text from " + s)
        self.reg.take(s)
        self.texts.append(s)
        return s

    # -- turns ---------------------------------------------------------------------------------------------
    @staticmethod
    def add(parts, text=None, media=(), pos="after"):
        media = [m for m in media if m]
        parts.append({"text": text, "media": media, "pos": pos})

    def finish_turn(self, parts):
        els = []
        for p in parts:
            seq = []
            if p["pos"] == "before":
                seq += [("m", m) for m in p["media"]]
                if p["text"]:
                    seq.append(("t", p["text"]))
            else:
                if p["text"]:
                    seq.append(("t", p["text"]))
                seq += [("m", m) for m in p["media"]]
            els += seq
        merged = []
        for kind, v in els:
            if kind == "t" and merged and merged[-1][0] == "t":
                prev = merged[-1][1]
                sep = ". " if (prev[-1:].isalnum() or prev[-1:] == "'") else " "
                merged[-1] = ("t", prev + sep + v)
            else:
                merged.append((kind, v))
        turn = [{"__TEXT__": self.settle(v)} if kind == "t" else {"__MEDIA__": v} for kind, v in merged]
        assert turn, "empty turn"
        self.turns.append({"turn": turn})

    def pos(self):
        return "before" if self.rng.random() < 0.35 else "after"

    # -- the conversation ------------------------------------------------------------------------------------
    SOFT = ("reacted", "answered", "accepted", "shared_ack", "answered_ack", "closed")
    P_INIT = {"reacted": 0.45, "answered": 0.5, "accepted": 0.35, "shared_ack": 0.6, "answered_ack": 0.7, "closed": 0.0}

    def run(self):
        rng = self.rng
        cat = self.cat
        opener = weighted(rng, cat.get("openers", {"share": 0.42, "news": 0.2, "open": 0.32, "photo": 0.06}))
        if opener == "news" and not self.fits_any(cat.get("news", [])):
            opener = "share"
        if opener == "open" and not cat.get("open"):
            opener = "share"
        # turn i is spoken by A (even) or B (odd); S is the one whose subject it is, O the friend
        roles = ["S", "O"] if opener != "open" else ["O", "S"]
        pending = None
        for i in range(self.n):
            role = roles[i % 2]
            remaining = self.n - 1 - i
            parts = []
            if i == 0:
                pending = self.opener(opener, parts)
            else:
                pending = self.respond(pending, role, remaining, parts)
                if remaining > 0 and (pending is None or pending[0] in self.SOFT):
                    p = self.P_INIT.get(pending[0], 1.0) if pending else 1.0
                    if not parts or rng.random() < p:
                        got = self.initiative(role, remaining, parts, i)
                        if got:
                            if got[0] == "drift":
                                roles = ["O", "S"] if i % 2 == 0 else ["S", "O"]
                                got = got[1]
                            pending = got
                if not parts:
                    if remaining == 0 and len(self.turns) >= 3:
                        break  # nothing left to say: the conversation ends here
                    pending = self.closing_line(role, parts)
            self.finish_turn(parts)
        return self.turns

    def opener(self, kind, parts):
        rng = self.rng
        cat = self.cat
        if kind in ("share", "photo"):
            m = self.use_media(self.subject_media())
            self.set_where(m)
            tags = []
            if kind == "photo" and self.pool.by_key[m]["kind"] != "sticker":
                media = [m]
                if rng.random() < 0.3:
                    media.append(self.use_media(self.subject_media(avoid=[m])))
                self.add(parts, None, media)
            else:
                self.add(parts, self.say(cat["share"], tags_out=tags), [m], self.pos())
            return ("shared", {"moods": [t for t in tags if t in bank.STICKERS]})
        if kind == "news":
            tags = []
            self.add(parts, self.say(cat["news"], tags_out=tags))
            return ("news", {"moods": [t for t in tags if t in bank.STICKERS]})
        text = self.say(cat["open"])
        if rng.random() < 0.3:
            text = self.say(bank.GREETINGS) + " " + text
        self.add(parts, text)
        return ("open", {})

    def set_where(self, m):
        if not m:
            return
        it = self.pool.by_key[m]
        if it["kind"] == "scene" and it.get("_bg"):
            self.ctx["where"] = self.cat.get("where", {}).get(it["_bg"]) or bank.WHERE.get(it["_bg"])

    def has_more(self):
        keys = [k for k in self.catalog.media(self.cname, self.cid) if k not in self.media_used]
        return bool(keys) or bool(self.cat.get("more_other"))

    def more_pictures(self, n):
        """Up to n more pictures of the subject; else one of another thing of the category, with its slots."""
        media = []
        for _ in range(n):
            m = self.subject_media(avoid=media)
            if m:
                media.append(self.use_media(m))
        if media:
            return media, None
        if self.cat.get("more_other"):
            m, oc = self.other_media()
            if m:
                return [self.use_media(m)], concept_slots(oc, "other")
        return [], None

    def respond(self, pending, role, remaining, parts):
        rng = self.rng
        cat = self.cat
        kind, data = pending if pending else (None, {})
        if kind == "open":
            m = self.use_media(self.subject_media())
            self.set_where(m)
            tags = []
            self.add(parts, self.say(cat.get("open_a") or cat["share"], tags_out=tags), [m], self.pos())
            if rng.random() < 0.08:
                m2 = self.subject_media(avoid=[m])
                if m2:
                    parts[-1]["media"].append(self.use_media(m2))
            return ("shared", {"moods": [t for t in tags if t in bank.STICKERS]})
        if kind == "news":
            self.add(parts, self.say(cat.get("news_react") or bank.NEWS_REACT))
            self.add(parts, self.say(bank.REQUEST_NEWS))
            return ("request", {"moods": data.get("moods"), "first": True})
        if kind == "shared":
            own = data.get("own")
            moods = data.get("moods") or [m for m in self.share_sents if m != "jealous"] or bank.OWN_SENTS
            mood = rng.choice(moods)
            r = rng.random()
            reactq = [q for q, v in cat.get("q", {}).items() if v.get("react") and q not in self.asked and self.q_fits(v)]
            if not own and reactq and r < 0.3 and not data.get("more") and remaining > 0:
                qid = rng.choice(reactq)
                self.asked.add(qid)
                self.asked.update(cat["q"][qid].get("marks", []))
                text = self.say(cat["q"][qid]["q"])
                st = self.sticker(mood) if mood in ("love", "cute", "wow", "celebrate") and rng.random() < 0.2 else None
                self.add(parts, text, [st], "before" if rng.random() < 0.5 else "after")
                return ("q", {"qid": qid, "bank": "q"})
            if r < 0.64 or (remaining == 0 and r < 0.74):
                texts = bank.REACT[mood]
                if not own and cat.get("react", {}).get(mood) and (cat.get("react_only") or rng.random() < 0.6):
                    texts = cat["react"][mood]
                text = self.say(texts)
                st = self.sticker(mood) if rng.random() < 0.18 else None
                self.add(parts, text, [st], self.pos())
            else:
                media = [self.sticker(mood)]
                if rng.random() < 0.12:
                    media.append(self.sticker(mood))
                self.add(parts, None, media)
            return ("reacted", {"mood": mood, "own": own})
        if kind == "reacted":
            mood = data["mood"]
            if data.get("own"):
                return ("shared_ack", {})
            r = rng.random()
            if r < 0.5:
                tmpl = cat.get("react_back_by", {}).get(mood) or bank.REACT_BACK.get(mood, bank.REACT_BACK["love"])
                if mood in ("love", "wow", "cute", "approve"):
                    tmpl = tmpl + cat.get("react_back", [])
                self.add(parts, self.say(tmpl))
            elif r < 0.62 and mood not in ("sad", "shock", "support", "tired", "cold", "hot"):
                self.add(parts, None, [self.sticker("laugh" if mood == "laugh" else "love")])
            return ("shared_ack", {})
        if kind == "q":
            q = (cat.get(data["bank"]) or {})[data["qid"]]
            tags = []
            text = self.say(q["a"], tags_out=tags)
            media = self.tag_media(tags)
            mood = next((t for t in tags if t in ("pos", "neg", "fun", "neu")), "pos")
            self.add(parts, text, media, self.pos())
            return ("answered", {"mood": mood})
        if kind == "answered":
            r = rng.random()
            mood = data["mood"]
            smood = cat.get("ack_sticker", {}).get(mood) or bank.MOOD_STICKER[mood]
            if r < 0.5:
                st = self.sticker(smood) if rng.random() < 0.12 else None
                self.add(parts, self.say(bank.ACK[mood]), [st], self.pos())
            elif r < 0.72:
                self.add(parts, None, [self.sticker(smood)])
            return ("answered_ack", {})
        if kind == "request":
            self.stats["asked for a picture"] += 1
            media, extra = self.more_pictures(2 if rng.random() < 0.15 else 1)
            self.stats["... and got one in the reply"] += bool(media)
            if not media:
                self.add(parts, self.say(bank.NO_MORE))
                return ("answered", {"mood": "fun"})
            if extra:
                self.add(parts, self.say(cat["more_other"], extra), media, self.pos())
                return ("shared", {"more": True, "own": True})
            elif data.get("first") and rng.random() < 0.6:
                self.add(parts, self.say(bank.FIRST_PIC), media, self.pos())
            elif not data.get("first") and rng.random() < 0.55:
                self.add(parts, self.say(cat.get("more", []) + (bank.MORE_TWO if len(media) > 1 else bank.MORE)), media, self.pos())
            else:
                self.add(parts, None, media)
            return ("shared", {"more": True, "moods": data.get("moods")})
        if kind == "own":
            mood = data.get("mood", "pos")
            if data.get("media"):
                return self.respond(("shared", {"own": True}), role, remaining, parts)
            st = self.sticker(bank.MOOD_STICKER.get(mood, "love")) if rng.random() < 0.12 else None
            self.add(parts, self.say(bank.ACK_OWN[mood]), [st], self.pos())
            return ("answered_ack", {})
        if kind == "suggest":
            if rng.random() < 0.18:
                self.add(parts, None, [self.sticker("approve")])
            else:
                st = self.sticker("approve") if rng.random() < 0.2 else None
                self.add(parts, self.say(cat.get("accept", []) + bank.ACCEPT), [st], self.pos())
            return ("accepted", {})
        if kind == "close":
            ctype = data.get("type", "wish")
            mood = rng.choice(["wave", "love"] if ctype == "bye" else ["love", "approve"])
            if rng.random() < 0.3:
                self.add(parts, None, [self.sticker(mood)])
            else:
                st = self.sticker(mood) if rng.random() < 0.2 else None
                tmpl = bank.CLOSE_REPLY[ctype] + (cat.get("close_reply", []) if ctype == "wish" else [])
                self.add(parts, self.say(tmpl), [st], self.pos())
            return ("closed", {})
        return None

    def tag_media(self, tags):
        media = []
        for t in tags:
            if t == "img":
                m = self.subject_media()
                if m:
                    media.append(self.use_media(m))
            elif t == "food":
                keys = []
                for lab in self.ctx.get("_food_stickers", []):
                    keys += self.pool.stickers_by_label.get(norm(lab), [])
                keys = [k for k in keys if k not in self.media_used]
                if keys and self.rng.random() < 0.7:
                    media.append(self.use_media(self.pool.pick(self.rng, keys)))
            elif t.startswith("stk:") and self.rng.random() < 0.6:
                media.append(self.sticker(t[4:]))
        return [m for m in media if m]

    def fits_any(self, templates):
        for t in templates:
            only = [x for x in split_tags(t)[0] if x.startswith("only:")]
            if not only or self.cid in only[0][5:].split(","):
                return True
        return False

    def q_fits(self, q):
        only = q.get("only")
        if only and self.cid not in only:
            return False
        unless = q.get("unless")
        if unless and unless in self.ctx.get("_used", set()):
            return False
        need = q.get("needs")
        if need and not self.ctx.get(need):
            return False
        return True

    def initiative(self, role, remaining, parts, i):
        rng = self.rng
        cat = self.cat
        opts = {}
        bankname = "q" if role == "O" else "qs"
        qs = [q for q, v in cat.get(bankname, {}).items() if q not in self.asked and self.q_fits(v) and v.get("react") != "only"]
        if qs:
            opts["ask"] = 4.0 if role == "O" else 2.5
        if role == "O":
            if not self.done["request"] and self.has_more():
                opts["request"] = 2.2
            if not self.done["own"] and cat.get("own"):
                opts["own"] = 1.3
            if "drift" not in self.flags and i >= 2 and remaining >= 2 and rng.random() < 0.6:
                opts["drift"] = 3.0
            if not self.done["suggest"] and cat.get("suggest") and i >= 2:
                opts["suggest"] = 1.0
        else:
            if not self.done["more"] and not self.done["request"] and self.has_more():
                opts["more"] = 1.0
            if not self.done["suggest"] and cat.get("suggest_s") and i >= 2:
                opts["suggest"] = 1.0
        if not self.done["close"] and remaining <= 1 and i >= 2:
            opts["close"] = (2.5 if remaining == 1 else 1.5) if role == "O" else 0.8
        if not opts:
            return None
        what = weighted(rng, opts)
        self.done[what] += 1
        if what == "ask":
            qid = rng.choice(qs)
            self.asked.add(qid)
            self.asked.update(cat[bankname][qid].get("marks", []))
            for what_else in cat[bankname][qid].get("blocks", []):
                self.done[what_else] += 1
            self.add(parts, self.say(cat[bankname][qid]["q"]))
            return ("q", {"qid": qid, "bank": bankname})
        if what == "request":
            self.add(parts, self.say(cat.get("request", []) + bank.REQUEST if rng.random() < 0.6 else bank.REQUEST))
            return ("request", {})
        if what == "more":
            media, extra = self.more_pictures(1)
            if not media:
                return None
            tmpl = (cat["more_other"] if extra else bank.MORE_UNPROMPTED + cat.get("more", []))
            self.add(parts, self.say(tmpl, extra), media, self.pos())
            return ("shared", {"more": True, "own": bool(extra)})
        if what == "own":
            tags = []
            media = []
            m = None
            if cat.get("own_img") and rng.random() < 0.4:
                m, oc = self.other_media()
            if m:
                media.append(self.use_media(m))
                text = self.say(cat["own_img"], concept_slots(oc, "other"), tags_out=tags)
            else:
                text = self.say(cat["own"], tags_out=tags)
            mood = next((t for t in tags if t in ("pos", "neg", "fun", "neu", "thanks", "invite")), "pos")
            self.add(parts, text, media, self.pos())
            return ("own", {"mood": mood, "media": bool(media)})
        if what == "suggest":
            self.add(parts, self.say(cat["suggest"] if role == "O" else cat["suggest_s"]))
            return ("suggest", {})
        if what == "close":
            return self.closing_line(role, parts)
        if what == "drift":
            others = [c for c in bank.CATEGORIES if c != self.cname and bank.CATEGORIES[c].get("open")
                      and bank.CATEGORIES[c]["topic"] != self.cat["topic"]]
            self.flags.add("drift")
            self.set_subject(rng.choice(others))
            text = self.say(bank.DRIFT_PRE) + " " + self.say(self.cat["open"])
            self.add(parts, text)
            return ("drift", ("open", {}))
        return None

    def closing_line(self, role, parts):
        tmpl = bank.CLOSE + (self.cat.get("close", []) if role == "O" else [])
        tags = []
        self.add(parts, self.say(tmpl, tags_out=tags))
        self.done["close"] += 1
        return ("close", {"type": "bye" if "bye" in tags else "wish"})


SUBJECT_USES = Counter()
VARIED_LOG = []
STATS = Counter()


def weighted(rng, w):
    items = list(w.items())
    total = sum(v for _, v in items)
    r = rng.random() * total
    for k, v in items:
        r -= v
        if r <= 0:
            return k
    return items[-1][0]


def plural_of(word):
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def concept_slots(concept, prefix="thing"):
    s = dict(concept.get("slots", {}))
    thing = s.get("thing") or concept["match"][0]
    out = {prefix: thing}
    plural = thing.endswith("s") and not thing.endswith(("ss", "us", "is"))
    out["a_" + prefix] = s.get("a_thing") or (thing if plural else article(thing))
    out[prefix + "s"] = s.get("things") or plural_of(thing)
    out["the_" + prefix] = s.get("the_thing") or ("the " + thing)
    if prefix == "thing":
        for k, v in s.items():
            out[k] = v
    return out


def make_ctx(rng, cat, concept, other=None):
    ctx = {"_used": set()}
    for k, v in bank.COMMON_SLOTS.items():
        ctx[k] = rng.choice(v) if isinstance(v, list) else v
    for k, v in cat.get("slots", {}).items():
        ctx[k] = rng.choice(v) if isinstance(v, list) and not k.startswith("_") else v
    for k, v in concept_slots(concept).items():
        keep = k.endswith("_line") or k in ("story",) or k.startswith("_")
        ctx[k] = rng.choice(v) if isinstance(v, list) and not keep else v
    if other:
        ctx.update(concept_slots(other, "other"))
    thing = ctx["thing"]
    plural = concept.get("slots", {}).get("plural")
    if plural is None:
        plural = thing.endswith("s") and not thing.endswith(("ss", "us", "is"))
    ctx.update({"these": "these" if plural else "this", "them": "them" if plural else "it", "are": "are" if plural else "is",
                "they": "they" if plural else "it", "do": "do" if plural else "does", "look": "look" if plural else "looks"})
    if cat.get("make_ctx"):
        getattr(bank, cat["make_ctx"])(rng, ctx, concept)
    return ctx


# ----------------------------------------------------------------------------------------------- the pool of texts

def written_pool(rng, catalog):
    """Candidate texts from the grammars: every template of every category, filled with random subjects,
    at most a few realisations per template, plus the small-talk grammar and the hand-written lines."""
    out = []  # (text, topic)
    seen = set()

    def put(s, topic):
        s = tidy(s)
        if s and s not in seen and len(s) <= 280:
            seen.add(s)
            out.append((s, topic))

    for line in bank.HANDWRITTEN:
        topic, text = line.split(": ", 1)
        put(text, topic)
    for topic, templates, per in bank.POOL_GRAMMAR:
        for t in templates:
            for _ in range(per):
                try:
                    put(expand(split_tags(t)[1], dict(bank.COMMON_SLOTS_ONE(rng)), rng), topic)
                except Missing:
                    pass
    generic = [("feelings", bank.REACT), ("feelings", bank.ACK), ("feelings", bank.REACT_BACK),
               ("small-talk", {"x": bank.ACCEPT + bank.CLOSE + bank.GREETINGS}), ("small-talk", bank.CLOSE_REPLY),
               ("small-talk", {"x": bank.REQUEST + bank.REQUEST_NEWS + bank.MORE + bank.MORE_TWO + bank.MORE_UNPROMPTED + bank.NEWS_REACT}),
               ("feelings", bank.ACK_OWN)]
    for topic, d in generic:
        for lines in d.values():
            for t in lines:
                for _ in range(3):
                    try:
                        put(expand(split_tags(t)[1], dict(bank.COMMON_SLOTS_ONE(rng)), rng), topic)
                    except Missing:
                        pass
    for cname, cat in bank.CATEGORIES.items():
        cids = [c for c in cat["concepts"] if catalog.media(cname, c)] or list(cat["concepts"])
        templates = []
        for key in ("share", "news", "open", "open_a", "request", "more", "more_other", "own", "suggest", "close",
                    "react_back", "accept", "close_reply", "news_react"):
            templates += cat.get(key, [])
        for d in cat.get("react", {}).values():
            templates += d
        for bname in ("q", "qs"):
            for q in cat.get(bname, {}).values():
                templates += q["q"] + q["a"]
        for t in templates:
            only = [x[5:].split(",") for x in split_tags(t)[0] if x.startswith("only:")]
            tcids = [c for c in cids if c in only[0]] if only else cids
            if not tcids:
                continue
            for _ in range(cat.get("pool_per", 3)):
                concept = cat["concepts"][rng.choice(tcids)]
                ctx = make_ctx(rng, cat, concept)
                oc = cat["concepts"][rng.choice(cids)]
                ctx.update(concept_slots(oc, "other"))
                if "where" not in ctx:
                    ctx["where"] = rng.choice(sorted(set(bank.WHERE.values())))
                try:
                    put(expand(split_tags(t)[1], ctx, rng), cat["topic"])
                except Missing:
                    pass
    return out


# ----------------------------------------------------------------------------------------------- main

def build(media_path, seed):
    items = json.load(open(media_path, encoding="utf-8"))["items"]
    pool = Pool(items)
    catalog = Catalog(pool)
    rng = random.Random(seed)
    SUBJECT_USES.clear()
    STATS.clear()

    written = written_pool(random.Random(seed + 1), catalog)
    if len(written) < MIN_WRITTEN:
        raise SystemExit(f"only {len(written)} written texts (need {MIN_WRITTEN})")
    written_set = set(t for t, _ in written)

    # the dialogue plan: categories spread over the splits, every 9th to valid and the next to test
    cats = []
    for cname, cat in bank.CATEGORIES.items():
        if not any(catalog.media(cname, c) for c in cat["concepts"]):
            print(f"warning: no media for category {cname}; skipped", file=sys.stderr)
            continue
        cats.append(cname)
    total = sum(n for _, n in SPLITS)
    weights = [bank.CATEGORIES[c].get("weight", 1.0) for c in cats]
    plan = []
    acc = [0.0] * len(cats)
    for i in range(total):  # deterministic weighted round robin
        for j, w in enumerate(weights):
            acc[j] += w
        j = max(range(len(cats)), key=lambda j: acc[j])
        acc[j] -= sum(weights)
        plan.append(cats[j])
    rng.shuffle(plan)
    split_of = []
    for i in range(total):
        r = i % 9
        split_of.append("valid" if r == 7 else "test" if r == 8 else "train")
    lengths = [3, 4, 5, 6, 7, 8]
    len_w = [0.14, 0.22, 0.22, 0.18, 0.13, 0.11]

    reg = Registry()
    records = {"train": [], "valid": [], "test": []}
    meta = []
    next_id = {"train": 0, "valid": 350, "test": 400}
    for phase in ("train", "heldout"):
        if phase == "heldout":
            reg.forbidden = written_set | set(reg.used)
            varied_train, reg.varied = reg.varied, 0
        for i in range(total):
            split = split_of[i]
            if (split == "train") != (phase == "train"):
                continue
            drng = random.Random(f"{seed}-{i}")
            n_turns = drng.choices(lengths, len_w)[0]
            for attempt in range(20):
                snapshot = (Counter(reg.used), reg.dups, Counter(pool.uses), Counter(SUBJECT_USES))
                d = Dialogue(drng, pool, catalog, reg, plan[i], n_turns, strict=split != "train")
                try:
                    turns = d.run()
                    break
                except Missing as e:
                    reg.used, reg.dups, pool.uses = snapshot[0], snapshot[1], snapshot[2]
                    SUBJECT_USES.clear()
                    SUBJECT_USES.update(snapshot[3])
                    last = e
            else:
                raise SystemExit(f"dialogue {i} ({plan[i]}): {last}")
            STATS.update(d.stats)
            cid = next_id[split]
            next_id[split] += 1
            records[split].append({"conversation_id": cid, "conversation": turns})
            meta.append({"split": split, "id": cid, "category": plan[i], "subject": d.cid, "flags": sorted(d.flags)})

    # the pool: written texts, then the train dialogue texts that are new
    texts = []
    for j, (t, topic) in enumerate(written):
        texts.append({"id": f"w{j + 1:05d}", "text": t, "topic": topic, "source": "written"})
    seen = set(written_set)
    k = 0
    train_topic = {m["id"]: bank.CATEGORIES[m["category"]]["topic"] for m in meta if m["split"] == "train"}
    for rec in records["train"]:
        for turn in rec["conversation"]:
            for el in turn["turn"]:
                t = el.get("__TEXT__")
                if t is not None and t not in seen:
                    seen.add(t)
                    k += 1
                    texts.append({"id": f"d{k:05d}", "text": t, "topic": train_topic[rec["conversation_id"]], "source": "dialogue-train"})

    # negatives for valid and test
    media_keys = [it["key"] for it in items]
    written_texts = [t for t, _ in written]
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
    return {"texts": texts, "records": records, "meta": meta, "pool": pool, "reg": reg, "written": written,
            "varied": {"train": varied_train, "valid+test": reg.varied}, "stats": dict(STATS)}


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
    topics = Counter(bank.CATEGORIES[m["category"]]["topic"] for m in out["meta"])
    print("dialogues by topic: " + ", ".join(f"{k} {v}" for k, v in sorted(topics.items())))
    print(f"dialogues with a topic drift: {sum('drift' in m['flags'] for m in out['meta'])}")
    print("requests for pictures: " + ", ".join(f"{k} {v}" for k, v in out["stats"].items()))
    media = Counter(el["__MEDIA__"] for rs in recs.values() for r in rs for t in r["conversation"] for el in t["turn"] if "__MEDIA__" in el)
    kinds = Counter(out["pool"].by_key[k]["kind"] for k in media.elements())
    print(f"media in dialogues: {sum(media.values())} uses of {len(media)} distinct keys; by kind: {dict(kinds)}")
    # the rules valid/test must keep
    train_texts = set(e["__TEXT__"] for r in recs["train"] for t in r["conversation"] for e in t["turn"] if "__TEXT__" in e)
    pool_texts = set(t["text"] for t in out["texts"])
    bad = 0
    for split in ("valid", "test"):
        for r in recs[split]:
            for t in r["conversation"]:
                for e in t["turn"]:
                    if "__TEXT__" in e and (e["__TEXT__"] in train_texts or e["__TEXT__"] in pool_texts):
                        bad += 1
    print(f"valid/test texts found in train dialogues or texts.json: {bad}")


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
    out = build(args.media, args.seed)
    files = render(out)
    again = render(build(args.media, args.seed))
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
