"""What a dialogue is about: a concept of a category, and the context its templates are filled from."""
from collections import Counter

from grammar import article, only_for, plural_of, split_tags


def concept_slots(concept, prefix="thing"):
    """The slots naming a concept: thing, a_thing, things, the_thing (or other, a_other... for prefix "other")."""
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


def make_ctx(templates, rng, cat, concept, other=None):
    """The context of a dialogue about `concept`: common slots, the category's and the concept's, each list
    resolved to one choice now (so the dialogue keeps to it) except the slots meant to vary line by line."""
    ctx = {"_used": set()}
    for k, v in templates.common_slots.items():
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
    hook = templates.make_ctx_hook(cat)
    if hook:
        hook(rng, ctx, concept)
    return ctx


class Subject:
    """One concept of one category as a dialogue's subject, with its context and what has been said about it."""

    def __init__(self, templates, cname, cid, ctx):
        self.cname = cname
        self.cat = templates.categories[cname]
        self.cid = cid
        self.concept = self.cat["concepts"][cid]
        self.ctx = ctx
        self.asked = set()
        self.done = Counter()
        self.share_sents = self.concept.get("sents") or self.cat["sents"]

    def fits(self, template):
        """Whether an <only:...> tag leaves the template for this subject."""
        only = only_for(split_tags(template)[0])
        return not only or self.cid in only

    def fits_any(self, templates):
        return any(self.fits(t) for t in templates)

    def q_fits(self, q):
        """Whether a question of the category's q/qs banks may be asked about this subject now."""
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


def choose_subject(templates, catalog, rng, subject_uses, cname, avoid_concepts=()):
    """A concept of the category that has media, among the least used as subjects so far."""
    cat = templates.categories[cname]
    cands = [cid for cid in cat["concepts"] if catalog.media(cname, cid) and cid not in avoid_concepts]
    if not cands:
        raise RuntimeError("no media for category " + cname)
    low = min(subject_uses[(cname, c)] for c in cands)
    pick = rng.choice([c for c in cands if subject_uses[(cname, c)] <= low])
    subject_uses[(cname, pick)] += 1
    others = [c for c in cands if c != pick]
    other = cat["concepts"][rng.choice(others)] if others else None
    return Subject(templates, cname, pick, make_ctx(templates, rng, cat, cat["concepts"][pick], other))
