"""The template grammar of write_dialogues.py, and the small text utilities around it.

[a|b|c] picks one alternative (nested; [a|] is optional text), {slot} fills a slot of the dialogue's
context ({^slot} capitalises it), {e:mood} is an emoji code in MMDialog's style (:thumbs_up:) about half of
the time. A template whose slot is missing from the context raises Missing, so it is not used.
"""
import hashlib
import re
import unicodedata

EMOJI_P = 0.5


class Missing(Exception):
    """A template cannot be filled: a slot it names is not in the context."""


def norm(s):
    """A label phrase as it is compared: no accents, lower case, no apostrophes, words split by single spaces."""
    s = unicodedata.normalize("NFKD", s)
    s = "".join(c for c in s if not unicodedata.combining(c))
    s = s.lower().replace("\u2019", "'").replace("'", "")
    return re.sub(r"[^a-z0-9]+", " ", s).strip()


def text_key(s):
    """A message as two texts are judged the same: norm(), repeated letters once, no trailing "haha" (so every
    re-typing vary() makes of a text has the text's key)."""
    k = re.sub(r"(.)\1+", r"\1", norm(s))
    return re.sub(r"( ha(ha)*)+$", "", k)


def held_out(s):
    """Whether a text belongs to valid/test rather than to the pool and train: a fixed fifth of all keys, by
    hash, so no pool or train text (in any re-typing) is ever a valid or test response."""
    return int(hashlib.sha1(text_key(s).encode("utf-8")).hexdigest()[:8], 16) % 5 == 0


def article(phrase):
    return ("an " if phrase[:1].lower() in "aeiou" else "a ") + phrase


def plural_of(word):
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def weighted(rng, w):
    """A key of w, chosen with probability proportional to its value."""
    items = list(w.items())
    total = sum(v for _, v in items)
    r = rng.random() * total
    for k, v in items:
        r -= v
        if r <= 0:
            return k
    return items[-1][0]


class Grammar:
    """Fills templates; `emoji` maps a mood to the emoji codes {e:mood} may become."""

    def __init__(self, emoji, emoji_p=EMOJI_P):
        self.emoji = emoji
        self.emoji_p = emoji_p

    def expand(self, t, ctx, rng):
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
                out.append(self.expand(rng.choice(parts), ctx, rng))
                i = j + 1
            elif c == "{":
                j = t.index("}", i)
                out.append(self.slot(t[i + 1:j], ctx, rng))
                i = j + 1
            else:
                out.append(c)
                i += 1
        return "".join(out)

    def slot(self, name, ctx, rng):
        if name.startswith("e:"):
            codes = self.emoji[name[2:]]
            return " :" + rng.choice(codes) + ":" if rng.random() < self.emoji_p else ""
        cap = name.startswith("^")
        if cap:
            name = name[1:]
        if name not in ctx or ctx[name] is None:
            raise Missing(name)
        v = ctx[name]
        if isinstance(v, (list, tuple)):
            v = rng.choice(v)
        if "[" in v or "{" in v:
            v = self.expand(v, ctx, rng)
        ctx.setdefault("_used", set()).add(name)
        return v[:1].upper() + v[1:] if cap else v


def tidy(s):
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r" ([,.!?])", r"\1", s)
    s = re.sub(r"^[,.] *", "", s)
    s = re.sub(r"([!?]),", r"\1", s)
    return s


TAG_RE = re.compile(r"^<([a-z]+(?::[a-z_,]+)?)>\s*")


def split_tags(t):
    """Leading tags (<pos>, <stk:love>, <only:a,b>...) and the template after them."""
    tags = []
    while True:
        m = TAG_RE.match(t)
        if not m:
            return tags, t
        tags.append(m.group(1))
        t = t[m.end():]


def only_for(tags):
    """The concepts an <only:a,b> tag limits a template to, or None."""
    only = [x for x in tags if x.startswith("only:")]
    return only[0][5:].split(",") if only else None


# how people vary the same message when they type it: case, punctuation, stretched words
STRETCH = [("so", "soo"), ("omg", "omgg"), ("yes", "yess"), ("haha", "hahaha"), ("nice", "niice"), ("love", "loove"),
           ("ok", "okk"), ("aww", "awww"), ("no", "noo"), ("cute", "cuuute"), ("wow", "woww"), ("good", "goood"),
           ("thanks", "thanksss"), ("yay", "yayy"), ("ahh", "ahhh"), ("lol", "lool"), ("bye", "byee"), ("please", "pleasee")]
QUESTION_WORDS = ("do", "does", "did", "is", "are", "was", "were", "can", "what", "how", "who", "where", "when", "why")


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
        opts.append(s + ("?" if s.split()[0].lower() in QUESTION_WORDS else "!"))
    for w, long in STRETCH:
        if re.search(r"\b%s\b" % w, s, flags=re.I):
            opts.append(re.sub(r"\b%s\b" % w, long, s, count=1, flags=re.I))
    if not opts:
        opts.append(s + " haha")
    return rng.choice(opts)
