"""Helpers for the category files (cat_*.py): concepts and pronouns."""
import re
import unicodedata


def norm(s):
    s = unicodedata.normalize("NFKD", s)
    s = "".join(c for c in s if not unicodedata.combining(c))
    s = s.lower().replace("\u2019", "'").replace("'", "")
    return re.sub(r"[^a-z0-9]+", " ", s).strip()


def C(match, thing=None, kinds=None, not_=(), sents=None, related=None, feelings_ok=False, bgs=None, **slots):
    """A concept: the label phrases that show it ("dog|dog face|poodle"), what people call it, and slots."""
    phrases = [norm(p) for p in match.split("|") if p.strip()]
    out = {"match": phrases, "slots": dict(slots)}
    out["slots"]["thing"] = thing or match.split("|")[0].strip()
    if kinds:
        out["kinds"] = kinds
    if not_:
        out["not"] = [norm(p) for p in not_]
    if sents:
        out["sents"] = sents
    if related:
        out["related"] = related
    if feelings_ok:
        out["feelings_ok"] = True
    if bgs:
        out["bgs"] = bgs
    return out


PRONOUNS = {
    "he": {"he": "he", "him": "him", "his": "his", "himself": "himself", "goodboy": "good boy", "boy": "boy"},
    "she": {"he": "she", "him": "her", "his": "her", "himself": "herself", "goodboy": "good girl", "boy": "girl"},
}


def pet_ctx(rng, ctx, concept):
    g = rng.choice(["he", "she"])
    ctx.update(PRONOUNS[g])
    ctx["name"] = rng.choice(PET_NAMES)


def birthday_ctx(rng, ctx, concept):
    """Only your own birthday has an age you would tell."""
    if ctx.get("bday") != "my birthday":
        ctx["age"] = None


PET_NAMES = ["Max", "Luna", "Biscuit", "Mochi", "Pepper", "Noodle", "Olive", "Ziggy", "Bean", "Toast", "Coco", "Milo",
             "Nala", "Pumpkin", "Waffles", "Pickle", "Bruno", "Daisy", "Rocky", "Maple", "Oreo", "Juniper", "Peanut",
             "Teddy", "Frankie", "Sushi", "Kiwi", "Ginger", "Otis", "Lola", "Butter", "Socks", "Pip", "Hazel"]
