"""The template data of write_dialogues.py, read from the JSON files under templates/ (written for this project, CC0).

templates/index.json names the files: common.json (the generic banks: reactions by mood, acknowledgements,
requests for pictures, closings, emoji and stickers), pool_lines.json (the text pool's hand-written lines and
small-talk grammar) and categories/*.json (the categories of dialogue: a subject, what people say about it,
the questions they ask and the answers they get), read in the listed order, which fixes the dialogue plan.
Template syntax: see grammar.py; tags such as <pos> or <only:a,b>: see dialogue.py. Keys starting with "_" are notes for the reader.
"""
import json
import os

from grammar import norm

TEMPLATE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")


class TemplateError(Exception):
    pass


# Code that a category names by "make_ctx": context that depends on a random choice made for the dialogue.

def pet_ctx(templates, rng, ctx, concept):
    """A pet is a he or a she, with a name."""
    ctx.update(templates.pronouns[rng.choice(["he", "she"])])
    ctx["name"] = rng.choice(templates.pet_names)


def birthday_ctx(templates, rng, ctx, concept):
    """Only your own birthday has an age you would tell."""
    if ctx.get("bday") != "my birthday":
        ctx["age"] = None


CONTEXT_HOOKS = {"pet_ctx": pet_ctx, "birthday_ctx": birthday_ctx}


class Templates:
    """Every bank, line and category, as read from the files; attributes are named after the JSON keys."""

    def __init__(self, common, pool_lines, categories):
        for key, value in common.items():
            if not key.startswith("_"):
                setattr(self, key, value)
        self.handwritten = pool_lines["handwritten"]
        self.pool_grammar = pool_lines["pool_grammar"]
        self.categories = categories

    def common_slots_one(self, rng):
        return {k: rng.choice(v) for k, v in self.common_slots.items()}

    def make_ctx_hook(self, cat):
        name = cat.get("make_ctx")
        if not name:
            return None
        hook = CONTEXT_HOOKS[name]
        return lambda rng, ctx, concept: hook(self, rng, ctx, concept)


def _read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise TemplateError(f"{path}: {e}") from e


def _check_concept(where, concept):
    """Label phrases are compared after norm(), so they must be written normalised; slots need a thing."""
    for key in ("match", "not"):
        for phrase in concept.get(key, []):
            if norm(phrase) != phrase:
                raise TemplateError(f'{where}: {key} phrase "{phrase}" is not normalised; write "{norm(phrase)}"')
    if not concept.get("match") or "thing" not in concept.get("slots", {}):
        raise TemplateError(f'{where}: a concept needs "match" phrases and a "thing" slot')


def _relate(cat):
    """"related_by": SLOT relates the concepts that share that slot's value (the landmarks of one city, say)."""
    slot = cat.get("related_by")
    if not slot:
        return
    concepts = cat["concepts"]
    for key, concept in concepts.items():
        related = [other for other in concepts if other != key and concepts[other]["slots"].get(slot) == concept["slots"].get(slot)]
        if related:
            concept["related"] = related


def load_templates(directory=TEMPLATE_DIR):
    index = _read(os.path.join(directory, "index.json"))
    categories = {}
    for name in index["categories"]:
        path = os.path.join(directory, name)
        for cname, cat in _read(path).items():
            if cname.startswith("_"):
                continue
            if cname in categories:
                raise TemplateError(f"{path}: category {cname} is defined twice")
            if cat.get("make_ctx") and cat["make_ctx"] not in CONTEXT_HOOKS:
                raise TemplateError(f'{path}: {cname}: make_ctx "{cat["make_ctx"]}" is none of {", ".join(CONTEXT_HOOKS)}')
            for cid, concept in cat["concepts"].items():
                _check_concept(f"{path}: {cname}.{cid}", concept)
            _relate(cat)
            categories[cname] = cat
    return Templates(_read(os.path.join(directory, index["common"])), _read(os.path.join(directory, index["pool_lines"])), categories)
