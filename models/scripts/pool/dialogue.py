"""One dialogue of the demo: two friends talking about a subject, with pictures and stickers from the pool.

Tags at the start of answers and asides: <pos> <neg> <fun> <neu> (mood of the line, chooses the reply to it),
<img> (comes with another picture of the subject), <food> (with a sticker of the local food), <stk:mood> (often
with a sticker of that mood), <other> (with a picture of the speaker's own thing), <only:a,b> (only for these
concepts).
"""
from collections import Counter

from grammar import Missing, held_out, only_for, split_tags, text_key, tidy, vary, weighted
from subjects import choose_subject, concept_slots

DEFAULT_OPENERS = {"share": 0.42, "news": 0.2, "open": 0.32, "photo": 0.06}
# what a turn left for the next one to answer, after which a speaker may also take the initiative
SOFT = ("reacted", "answered", "accepted", "shared_ack", "answered_ack", "closed")
P_INIT = {"reacted": 0.45, "answered": 0.5, "accepted": 0.35, "shared_ack": 0.6, "answered_ack": 0.7, "closed": 0.0}
ANSWER_MOODS = ("pos", "neg", "fun", "neu")
# How often a train dialogue re-types a text it has said before rather than repeating it as it is.
RETYPE_REPEAT = 0.3


class Registry:
    """Every dialogue text so far, and which side of the held-out split is being written. A valid/test text's key
    is never one of the pool's or train's (`forbidden`); which keys each side prefers is fixed by hash
    (grammar.held_out), so both draw on every template list rather than train taking all its realisations."""

    def __init__(self):
        self.used = Counter()
        self.forbidden = set()  # text keys
        self.held_out_side = False
        self.dups = 0
        self.varied = 0

    def on_side(self, s):
        return held_out(s) == self.held_out_side

    def ok(self, s):
        return text_key(s) not in self.forbidden and self.used[s] == 0

    def take(self, s):
        if self.used[s]:
            self.dups += 1
        self.used[s] += 1


class BuildState:
    """What the dialogues of one build have used so far: texts, subjects and media. A dialogue that cannot be
    written is tried again from a snapshot, so its half-used texts and pictures do not count."""

    def __init__(self, pool):
        self.pool = pool
        self.registry = Registry()
        self.subject_uses = Counter()
        self.stats = Counter()

    def snapshot(self):
        return Counter(self.registry.used), self.registry.dups, Counter(self.pool.uses), Counter(self.subject_uses)

    def restore(self, snapshot):
        self.registry.used, self.registry.dups, self.pool.uses, self.subject_uses = snapshot


class TurnWriter:
    """Chooses the lines of one dialogue and puts its turns together."""

    def __init__(self, rng, grammar, registry, strict):
        self.rng = rng
        self.grammar = grammar
        self.registry = registry
        self.strict = strict  # valid/test: texts must be new
        self.texts = []
        self.used_templates = set()
        self.turns = []

    def new_text(self, s):
        return self.registry.ok(s) and s not in self.texts

    def say(self, templates, subject, extra=None, tags_out=None):
        """One line from a list of templates, new to this split if possible."""
        rng = self.rng
        ctx = dict(subject.ctx)
        if extra:
            ctx.update(extra)
        best = None
        for attempt in range(40):
            t = rng.choice(templates)
            if t in self.used_templates and attempt < 30:
                continue
            tags, body = split_tags(t)
            only = only_for(tags)
            if only and subject.cid not in only:
                continue
            try:
                s = tidy(self.grammar.expand(body, ctx, rng))
            except Missing:
                continue
            if not s:
                continue
            # A new text of this side of the held-out split is taken at once. Failing that, train repeats a text
            # of its side before it takes one of valid/test's, and valid/test take any text new to the pool and
            # train (Registry: the pool's and train's keys stay out of valid/test either way).
            new, side = self.new_text(s), self.registry.on_side(s)
            rank = (0 if new else 2) + (0 if side else 1) if self.strict else (0 if side else 2) + (0 if new else 1)
            if rank == 0:
                best = (rank, tags, s)
                self.used_templates.add(t)
                break
            if best is None or rank < best[0]:
                best = (rank, tags, s)
        if best is None:
            raise Missing("no template fits " + repr(templates[:2]))
        _, tags, s = best
        if tags_out is not None:
            tags_out.extend(tags)
        return s

    def settle(self, s):
        """The final text of an element. For valid/test it is new to the pool, train and the dialogues so far,
        re-typed the way people re-type a message (case, punctuation, a stretched word) when it is not. Train
        dialogues may repeat a text, as people do; a repeat is re-typed now and then."""
        if not self.new_text(s) and (self.strict or self.rng.random() < RETYPE_REPEAT):
            for k in range(60):
                v = vary(s, self.rng)
                for _ in range(k // 20):
                    v = vary(v, self.rng)
                if self.new_text(v):
                    s = v
                    self.registry.varied += 1
                    break
            else:
                if self.strict:
                    raise Missing("cannot make a new text from " + s)
        self.registry.take(s)
        self.texts.append(s)
        return s

    @staticmethod
    def add(parts, text=None, media=(), pos="after"):
        parts.append({"text": text, "media": [m for m in media if m], "pos": pos})

    def pos(self):
        """Where a picture goes beside its text."""
        return "before" if self.rng.random() < 0.35 else "after"

    def finish_turn(self, parts):
        """The turn's elements in order, neighbouring texts joined into one message."""
        els = []
        for p in parts:
            texts = [("t", p["text"])] if p["text"] else []
            media = [("m", m) for m in p["media"]]
            els += media + texts if p["pos"] == "before" else texts + media
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


class DialogueMedia:
    """The pictures and stickers of one dialogue, none used twice in it."""

    def __init__(self, rng, templates, pool, catalog):
        self.rng = rng
        self.templates = templates
        self.pool = pool
        self.catalog = catalog
        self.used = []

    def use(self, k):
        if k:
            self.used.append(k)
        return k

    def of_subject(self, subject, prefer_photo=True, avoid=()):
        keys = self.catalog.media(subject.cname, subject.cid)
        avoid = set(avoid) | set(self.used)
        keys = [k for k in keys if k not in avoid]
        if not keys:
            return None
        rich = [k for k in keys if self.pool.by_key[k]["kind"] in ("photo", "scene")]
        if prefer_photo and rich and self.rng.random() < 0.8:
            keys = rich
        return self.pool.pick(self.rng, keys)

    def of_other(self, subject):
        """A picture of another concept of the same category (for <other> and 'and this one' turns), and that concept."""
        cat = subject.cat
        cands = [cid for cid in cat["concepts"] if cid != subject.cid and self.catalog.media(subject.cname, cid)]
        rel = subject.concept.get("related")
        if rel:
            cands = [c for c in cands if c in rel] or cands
        elif cat.get("strict_related"):
            cands = []
        if not cands:
            return None, None
        cid = self.rng.choice(cands)
        keys = [k for k in self.catalog.media(subject.cname, cid) if k not in self.used]
        if not keys:
            return None, None
        return self.pool.pick(self.rng, keys), cat["concepts"][cid]

    def sticker(self, subject, mood):
        keys = self.pool.stickers_labelled(subject.cat.get("stickers", {}).get(mood, []))
        keys = keys or self.pool.stickers_for(mood) or self.pool.stickers_for("approve")
        keys = [k for k in keys if k not in self.used] or keys
        if not keys:
            raise SystemExit(f"no reaction sticker for '{mood}' in the image pool")
        return self.use(self.pool.pick(self.rng, keys))

    def note_where(self, subject, m):
        """A scene's background says where the subject was ({where})."""
        if not m:
            return
        it = self.pool.by_key[m]
        if it["kind"] == "scene" and it.get("_bg"):
            subject.ctx["where"] = subject.cat.get("where", {}).get(it["_bg"]) or self.templates.where.get(it["_bg"])

    def has_more(self, subject):
        keys = [k for k in self.catalog.media(subject.cname, subject.cid) if k not in self.used]
        return bool(keys) or bool(subject.cat.get("more_other"))

    def more(self, subject, n):
        """Up to n more pictures of the subject; else one of another thing of the category, with its slots."""
        media = []
        for _ in range(n):
            m = self.of_subject(subject, avoid=media)
            if m:
                media.append(self.use(m))
        if media:
            return media, None
        if subject.cat.get("more_other"):
            m, oc = self.of_other(subject)
            if m:
                return [self.use(m)], concept_slots(oc, "other")
        return [], None

    def for_tags(self, subject, tags):
        """The pictures an answer's tags ask for: <img>, <food>, <stk:mood>."""
        media = []
        for t in tags:
            if t == "img":
                m = self.of_subject(subject)
                if m:
                    media.append(self.use(m))
            elif t == "food":
                keys = [k for k in self.pool.stickers_labelled(subject.ctx.get("_food_stickers", [])) if k not in self.used]
                if keys and self.rng.random() < 0.7:
                    media.append(self.use(self.pool.pick(self.rng, keys)))
            elif t.startswith("stk:") and self.rng.random() < 0.6:
                media.append(self.sticker(subject, t[4:]))
        return [m for m in media if m]


class Talk:
    """What the parts of one dialogue share: its random source, its subject (which a change of topic
    replaces), the writer of its lines and the pictures it has used."""

    def __init__(self, rng, templates, grammar, catalog, state, cname, strict):
        self.rng = rng
        self.templates = templates
        self.catalog = catalog
        self.state = state
        self.flags = set()
        self.stats = Counter()
        self.writer = TurnWriter(rng, grammar, state.registry, strict)
        self.media = DialogueMedia(rng, templates, state.pool, catalog)
        self.subject = self.choose_subject(cname)

    def choose_subject(self, cname):
        return choose_subject(self.templates, self.catalog, self.rng, self.state.subject_uses, cname)

    def say(self, templates, extra=None, tags_out=None):
        return self.writer.say(templates, self.subject, extra, tags_out)

    def moods_of(self, tags):
        return [t for t in tags if t in self.templates.stickers]


class Replies:
    """Answers to what the last turn left pending, one method per kind of pending."""

    def __init__(self, talk):
        self.talk = talk
        self.by_kind = {"open": self.answer_open, "news": self.answer_news, "shared": self.react, "reacted": self.thank,
                        "q": self.answer_question, "answered": self.acknowledge, "request": self.send_pictures,
                        "own": self.answer_own, "suggest": self.accept, "close": self.answer_goodbye}

    def respond(self, pending, role, remaining, parts):
        kind, data = pending if pending else (None, {})
        answer = self.by_kind.get(kind)
        return answer(data, role, remaining, parts) if answer else None

    def answer_open(self, data, role, remaining, parts):
        """'How's it going?': the subject's first picture."""
        talk = self.talk
        w = talk.writer
        m = talk.media.use(talk.media.of_subject(talk.subject))
        talk.media.note_where(talk.subject, m)
        tags = []
        w.add(parts, talk.say(talk.subject.cat.get("open_a") or talk.subject.cat["share"], tags_out=tags), [m], w.pos())
        if talk.rng.random() < 0.08:
            m2 = talk.media.of_subject(talk.subject, avoid=[m])
            if m2:
                parts[-1]["media"].append(talk.media.use(m2))
        return ("shared", {"moods": talk.moods_of(tags)})

    def answer_news(self, data, role, remaining, parts):
        talk = self.talk
        talk.writer.add(parts, talk.say(talk.subject.cat.get("news_react") or talk.templates.news_react))
        talk.writer.add(parts, talk.say(talk.templates.request_news))
        return ("request", {"moods": data.get("moods"), "first": True})

    def react(self, data, role, remaining, parts):
        """A picture was shared: a question about it, a reaction, or stickers."""
        talk = self.talk
        rng = talk.rng
        cat = talk.subject.cat
        w = talk.writer
        own = data.get("own")
        moods = data.get("moods") or [m for m in talk.subject.share_sents if m != "jealous"] or talk.templates.own_sents
        mood = rng.choice(moods)
        r = rng.random()
        reactq = [q for q, v in cat.get("q", {}).items() if v.get("react") and q not in talk.subject.asked and talk.subject.q_fits(v)]
        if not own and reactq and r < 0.3 and not data.get("more") and remaining > 0:
            qid = rng.choice(reactq)
            talk.subject.asked.add(qid)
            talk.subject.asked.update(cat["q"][qid].get("marks", []))
            text = talk.say(cat["q"][qid]["q"])
            st = talk.media.sticker(talk.subject, mood) if mood in ("love", "cute", "wow", "celebrate") and rng.random() < 0.2 else None
            w.add(parts, text, [st], "before" if rng.random() < 0.5 else "after")
            return ("q", {"qid": qid, "bank": "q"})
        if r < 0.64 or (remaining == 0 and r < 0.74):
            texts = talk.templates.react[mood]
            if not own and cat.get("react", {}).get(mood) and (cat.get("react_only") or rng.random() < 0.6):
                texts = cat["react"][mood]
            text = talk.say(texts)
            st = talk.media.sticker(talk.subject, mood) if rng.random() < 0.18 else None
            w.add(parts, text, [st], w.pos())
        else:
            media = [talk.media.sticker(talk.subject, mood)]
            if rng.random() < 0.12:
                media.append(talk.media.sticker(talk.subject, mood))
            w.add(parts, None, media)
        return ("reacted", {"mood": mood, "own": own})

    def thank(self, data, role, remaining, parts):
        """Someone reacted to my picture: thanks, a sticker, or nothing."""
        talk = self.talk
        mood = data["mood"]
        if data.get("own"):
            return ("shared_ack", {})
        cat = talk.subject.cat
        r = talk.rng.random()
        if r < 0.5:
            tmpl = cat.get("react_back_by", {}).get(mood) or talk.templates.react_back.get(mood, talk.templates.react_back["love"])
            if mood in ("love", "wow", "cute", "approve"):
                tmpl = tmpl + cat.get("react_back", [])
            talk.writer.add(parts, talk.say(tmpl))
        elif r < 0.62 and mood not in ("sad", "shock", "support", "tired", "cold", "hot"):
            talk.writer.add(parts, None, [talk.media.sticker(talk.subject, "laugh" if mood == "laugh" else "love")])
        return ("shared_ack", {})

    def answer_question(self, data, role, remaining, parts):
        talk = self.talk
        q = (talk.subject.cat.get(data["bank"]) or {})[data["qid"]]
        tags = []
        text = talk.say(q["a"], tags_out=tags)
        media = talk.media.for_tags(talk.subject, tags)
        mood = next((t for t in tags if t in ANSWER_MOODS), "pos")
        talk.writer.add(parts, text, media, talk.writer.pos())
        return ("answered", {"mood": mood})

    def acknowledge(self, data, role, remaining, parts):
        """An answer came: a line and maybe a sticker in its mood, a sticker alone, or nothing."""
        talk = self.talk
        w = talk.writer
        r = talk.rng.random()
        mood = data["mood"]
        smood = talk.subject.cat.get("ack_sticker", {}).get(mood) or talk.templates.mood_sticker[mood]
        if r < 0.5:
            st = talk.media.sticker(talk.subject, smood) if talk.rng.random() < 0.12 else None
            w.add(parts, talk.say(talk.templates.ack[mood]), [st], w.pos())
        elif r < 0.72:
            w.add(parts, None, [talk.media.sticker(talk.subject, smood)])
        return ("answered_ack", {})

    def send_pictures(self, data, role, remaining, parts):
        """Asked for a picture: more of the subject, one of another thing, or 'that's all I've got'."""
        talk = self.talk
        w = talk.writer
        talk.stats["asked for a picture"] += 1
        media, extra = talk.media.more(talk.subject, 2 if talk.rng.random() < 0.15 else 1)
        talk.stats["... and got one in the reply"] += bool(media)
        if not media:
            w.add(parts, talk.say(talk.templates.no_more))
            return ("answered", {"mood": "fun"})
        if extra:
            w.add(parts, talk.say(talk.subject.cat["more_other"], extra), media, w.pos())
            return ("shared", {"more": True, "own": True})
        elif data.get("first") and talk.rng.random() < 0.6:
            w.add(parts, talk.say(talk.templates.first_pic), media, w.pos())
        elif not data.get("first") and talk.rng.random() < 0.55:
            more = talk.templates.more_two if len(media) > 1 else talk.templates.more
            w.add(parts, talk.say(talk.subject.cat.get("more", []) + more), media, w.pos())
        else:
            w.add(parts, None, media)
        return ("shared", {"more": True, "moods": data.get("moods")})

    def answer_own(self, data, role, remaining, parts):
        """The friend told their own story: react to its picture, or acknowledge it."""
        talk = self.talk
        mood = data.get("mood", "pos")
        if data.get("media"):
            return self.respond(("shared", {"own": True}), role, remaining, parts)
        st = talk.media.sticker(talk.subject, talk.templates.mood_sticker.get(mood, "love")) if talk.rng.random() < 0.12 else None
        talk.writer.add(parts, talk.say(talk.templates.ack_own[mood]), [st], talk.writer.pos())
        return ("answered_ack", {})

    def accept(self, data, role, remaining, parts):
        talk = self.talk
        if talk.rng.random() < 0.18:
            talk.writer.add(parts, None, [talk.media.sticker(talk.subject, "approve")])
        else:
            st = talk.media.sticker(talk.subject, "approve") if talk.rng.random() < 0.2 else None
            talk.writer.add(parts, talk.say(talk.subject.cat.get("accept", []) + talk.templates.accept), [st], talk.writer.pos())
        return ("accepted", {})

    def answer_goodbye(self, data, role, remaining, parts):
        talk = self.talk
        rng = talk.rng
        ctype = data.get("type", "wish")
        mood = rng.choice(["wave", "love"] if ctype == "bye" else ["love", "approve"])
        if rng.random() < 0.3:
            talk.writer.add(parts, None, [talk.media.sticker(talk.subject, mood)])
        else:
            st = talk.media.sticker(talk.subject, mood) if rng.random() < 0.2 else None
            tmpl = talk.templates.close_reply[ctype] + (talk.subject.cat.get("close_reply", []) if ctype == "wish" else [])
            talk.writer.add(parts, talk.say(tmpl), [st], talk.writer.pos())
        return ("closed", {})


class Initiatives:
    """What a speaker may start: a question, a request for a picture, another picture, their own story, a
    suggestion, goodbye, or a change of topic (drift)."""

    def __init__(self, talk):
        self.talk = talk
        self.by_name = {"request": self.request, "more": self.show_more, "own": self.tell_own,
                        "suggest": self.suggest, "close": self.close, "drift": self.drift}

    def initiative_weights(self, role, remaining, i):
        """What the speaker could start now, with weights, and the questions they could ask."""
        talk = self.talk
        subject = talk.subject
        cat = subject.cat
        done = subject.done
        opts = {}
        bankname = "q" if role == "O" else "qs"
        qs = [q for q, v in cat.get(bankname, {}).items() if q not in subject.asked and subject.q_fits(v) and v.get("react") != "only"]
        if qs:
            opts["ask"] = 4.0 if role == "O" else 2.5
        if role == "O":
            if not done["request"] and talk.media.has_more(subject):
                opts["request"] = 2.2
            if not done["own"] and cat.get("own"):
                opts["own"] = 1.3
            if "drift" not in talk.flags and i >= 2 and remaining >= 2 and talk.rng.random() < 0.6:
                opts["drift"] = 3.0
            if not done["suggest"] and cat.get("suggest") and i >= 2:
                opts["suggest"] = 1.0
        else:
            if not done["more"] and not done["request"] and talk.media.has_more(subject):
                opts["more"] = 1.0
            if not done["suggest"] and cat.get("suggest_s") and i >= 2:
                opts["suggest"] = 1.0
        if not done["close"] and remaining <= 1 and i >= 2:
            opts["close"] = (2.5 if remaining == 1 else 1.5) if role == "O" else 0.8
        return opts, (qs, bankname)

    def take(self, role, remaining, parts, i):
        talk = self.talk
        opts, questions = self.initiative_weights(role, remaining, i)
        if not opts:
            return None
        what = weighted(talk.rng, opts)
        talk.subject.done[what] += 1
        if what == "ask":
            return self.ask(role, parts, *questions)
        return self.by_name[what](role, parts)

    def ask(self, role, parts, qs, bankname):
        talk = self.talk
        subject = talk.subject
        qid = talk.rng.choice(qs)
        q = subject.cat[bankname][qid]
        subject.asked.add(qid)
        subject.asked.update(q.get("marks", []))
        for what_else in q.get("blocks", []):
            subject.done[what_else] += 1
        talk.writer.add(parts, talk.say(q["q"]))
        return ("q", {"qid": qid, "bank": bankname})

    def request(self, role, parts):
        """Ask for (another) picture."""
        talk = self.talk
        request = talk.templates.request
        talk.writer.add(parts, talk.say(talk.subject.cat.get("request", []) + request if talk.rng.random() < 0.6 else request))
        return ("request", {})

    def show_more(self, role, parts):
        """Unasked, another picture of the subject (or of another thing of the category)."""
        talk = self.talk
        media, extra = talk.media.more(talk.subject, 1)
        if not media:
            return None
        tmpl = (talk.subject.cat["more_other"] if extra else talk.templates.more_unprompted + talk.subject.cat.get("more", []))
        talk.writer.add(parts, talk.say(tmpl, extra), media, talk.writer.pos())
        return ("shared", {"more": True, "own": bool(extra)})

    def tell_own(self, role, parts):
        """The friend's own story about such a thing, sometimes with a picture of theirs."""
        talk = self.talk
        cat = talk.subject.cat
        tags = []
        media = []
        m = None
        if cat.get("own_img") and talk.rng.random() < 0.4:
            m, oc = talk.media.of_other(talk.subject)
        if m:
            media.append(talk.media.use(m))
            text = talk.say(cat["own_img"], concept_slots(oc, "other"), tags_out=tags)
        else:
            text = talk.say(cat["own"], tags_out=tags)
        mood = next((t for t in tags if t in ANSWER_MOODS + ("thanks", "invite")), "pos")
        talk.writer.add(parts, text, media, talk.writer.pos())
        return ("own", {"mood": mood, "media": bool(media)})

    def suggest(self, role, parts):
        talk = self.talk
        cat = talk.subject.cat
        talk.writer.add(parts, talk.say(cat["suggest"] if role == "O" else cat["suggest_s"]))
        return ("suggest", {})

    def close(self, role, parts):
        """A goodbye or a good wish, which the other answers."""
        talk = self.talk
        tmpl = talk.templates.close + (talk.subject.cat.get("close", []) if role == "O" else [])
        tags = []
        talk.writer.add(parts, talk.say(tmpl, tags_out=tags))
        talk.subject.done["close"] += 1
        return ("close", {"type": "bye" if "bye" in tags else "wish"})

    def drift(self, role, parts):
        """'Anyway, how was ...?': the friend changes the subject to a category of another topic."""
        talk = self.talk
        cats = talk.templates.categories
        cname, topic = talk.subject.cname, talk.subject.cat["topic"]
        others = [c for c in cats if c != cname and cats[c].get("open") and cats[c]["topic"] != topic]
        talk.flags.add("drift")
        talk.subject = talk.choose_subject(talk.rng.choice(others))
        text = talk.say(talk.templates.drift_pre) + " " + talk.say(talk.subject.cat["open"])
        talk.writer.add(parts, text)
        return ("drift", ("open", {}))


class Dialogue:
    """The flow of one conversation: who opens and how, then turn by turn an answer to what the last turn left
    pending, and sometimes the speaker's own initiative.

    Turn i is spoken by A (even) or B (odd); S is the one whose subject it is, O the friend. Each step returns
    what it leaves pending, (kind, data), which the next turn answers."""

    def __init__(self, rng, templates, grammar, catalog, state, cname, n_turns, strict):
        self.talk = Talk(rng, templates, grammar, catalog, state, cname, strict)
        self.n = n_turns
        self.replies = Replies(self.talk)
        self.initiatives = Initiatives(self.talk)

    @property
    def subject(self):
        return self.talk.subject

    @property
    def flags(self):
        return self.talk.flags

    @property
    def stats(self):
        return self.talk.stats

    def run(self):
        talk = self.talk
        rng = talk.rng
        cat = talk.subject.cat
        opener = weighted(rng, cat.get("openers", DEFAULT_OPENERS))
        if opener == "news" and not talk.subject.fits_any(cat.get("news", [])):
            opener = "share"
        if opener == "open" and not cat.get("open"):
            opener = "share"
        roles = ["S", "O"] if opener != "open" else ["O", "S"]
        pending = None
        for i in range(self.n):
            role = roles[i % 2]
            remaining = self.n - 1 - i
            parts = []
            if i == 0:
                pending = self.open(opener, parts)
            else:
                pending = self.replies.respond(pending, role, remaining, parts)
                if remaining > 0 and (pending is None or pending[0] in SOFT):
                    p = P_INIT.get(pending[0], 1.0) if pending else 1.0
                    if not parts or rng.random() < p:
                        got = self.initiatives.take(role, remaining, parts, i)
                        if got:
                            if got[0] == "drift":
                                roles = ["O", "S"] if i % 2 == 0 else ["S", "O"]
                                got = got[1]
                            pending = got
                if not parts:
                    if remaining == 0 and len(talk.writer.turns) >= 3:
                        break  # nothing left to say: the conversation ends here
                    pending = self.initiatives.close(role, parts)
            talk.writer.finish_turn(parts)
        return talk.writer.turns

    # -- the first turn --------------------------------------------------------------------------------------
    def open(self, kind, parts):
        talk = self.talk
        rng = talk.rng
        cat = talk.subject.cat
        w = talk.writer
        if kind in ("share", "photo"):
            m = talk.media.use(talk.media.of_subject(talk.subject))
            talk.media.note_where(talk.subject, m)
            tags = []
            if kind == "photo" and talk.state.pool.by_key[m]["kind"] != "sticker":
                media = [m]
                if rng.random() < 0.3:
                    media.append(talk.media.use(talk.media.of_subject(talk.subject, avoid=[m])))
                w.add(parts, None, media)
            else:
                w.add(parts, talk.say(cat["share"], tags_out=tags), [m], w.pos())
            return ("shared", {"moods": talk.moods_of(tags)})
        if kind == "news":
            tags = []
            w.add(parts, talk.say(cat["news"], tags_out=tags))
            return ("news", {"moods": talk.moods_of(tags)})
        text = talk.say(cat["open"])
        if rng.random() < 0.3:
            text = talk.say(talk.templates.greetings) + " " + text
        w.add(parts, text)
        return ("open", {})
