"""Stage shim: the names of the old bank.py, read from templates/."""
from templates import load_templates

T = load_templates()
for _k, _v in vars(T).items():
    globals()[_k.upper()] = _v
HANDWRITTEN = [f"{t}: {x}" for t, x in T.handwritten]
POOL_GRAMMAR = [(g["topic"], g["frames"], g["per"]) for g in T.pool_grammar]
COMMON_SLOTS_ONE = T.common_slots_one


def pet_ctx(rng, ctx, concept):
    T.make_ctx_hook({"make_ctx": "pet_ctx"})(rng, ctx, concept)


def birthday_ctx(rng, ctx, concept):
    T.make_ctx_hook({"make_ctx": "birthday_ctx"})(rng, ctx, concept)
