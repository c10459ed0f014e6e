"""Builds the real CLIP tokenizer (models/clip-tokenizer/tokenizer.json, tokenizer_config.json) from
OpenAI's merges list in ../shared/data/clip-tokenizer (MIT), and a fixture of 200 varied sentences
tokenized by the independent reference implementation in clip_tokenizer.py.

Run: /usr/bin/python3 models/scripts/make_tokenizer.py [--shared ../shared]"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common.clip_fixture import clip_tokenizer_source  # noqa: E402
from clip_tokenizer import ReferenceTokenizer, write_tokenizer_files  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "models", "clip-tokenizer")

BASE = [
    "a photo of a cat",
    "A PHOTO OF A DOG",
    "Hello, world!",
    "What's up? I'm fine, you're late, they've gone, we'll see, he'd know.",
    "It's 3:45 pm on 12/05/2024 and it costs $19.99 (or €18,50).",
    "Call me at +1 (555) 010-9999 ext. 42",
    "The year 1999 and the number 1234567890",
    "🐶🐱 pets! 🎉🎉🎉",
    "I ❤️ NY",
    "👩‍👩‍👧‍👦 family emoji with zero-width joiners",
    "thumbs up 👍🏽 with a skin tone",
    "Café au lait, s'il vous plaît",
    "naïve façade, jalapeño, Zürich, São Paulo, Ångström",
    "Crème brûlée à la française",
    "Ελληνικά γράμματα και Русский текст",
    "日本語のテキストと中文文本",
    "한국어 문장도 있어요",
    "مرحبا بالعالم",
    "hashtags #sunset #travel and @mentions",
    "https://example.com/path?query=1&x=2",
    "email me: someone@example.org",
    "!!!???...,,,;;;:::",
    "--- *** ___ ~~~ ^^^",
    "\"quoted\" and 'single quoted' and `backticks`",
    "tabs\tand\nnew\nlines   and    spaces",
    "   leading and trailing spaces   ",
    "UPPER lower MiXeD CaSe",
    "supercalifragilisticexpialidocious",
    "antidisestablishmentarianism is long",
    "co-operate, re-enter, e-mail, T-shirt",
    "rock'n'roll and ma'am",
    "x = y + z * 2 / 3 - 1",
    "100% sure, 50/50 chance, 3.14159",
    "1st 2nd 3rd 4th place",
    "OK ok Ok oK",
    "<|startoftext|> and <|endoftext|> typed by a user",
    "an ellipsis… and a dash — and quotes “like these”",
    "½ cup of sugar, ¾ of the way, 2² = 4",
    "ﬁne ligatures and ＦＵＬＬＷＩＤＴＨ letters",
    "",
]

WORDS = ("beach mountain dog cat pizza pasta concert guitar birthday party sunset snow rain forest city street "
         "train plane hotel museum castle bridge river lake garden flower coffee tea cake bread market football "
         "tennis marathon yoga painting photo selfie friends family wedding holiday festival fireworks").split()
PUNCT = ["!", "?", ".", "...", "!!", ",", ":)", ";)", " 😂", " 🎉", " ❤️", " 👍"]


def generated(rng, n):
    out = []
    for i in range(n):
        k = rng.randint(2, 14)
        words = [rng.choice(WORDS) for _ in range(k)]
        if i % 3 == 0:
            words.insert(rng.randint(0, k), str(rng.randint(0, 100000)))
        if i % 4 == 0:
            words[0] = words[0].capitalize()
        if i % 5 == 0:
            words.insert(rng.randint(0, k), rng.choice(["don't", "I've", "it's", "we're", "you'll"]))
        out.append(" ".join(words) + rng.choice(PUNCT))
    return out


def main():
    tok_dir = clip_tokenizer_source(ROOT)
    os.makedirs(OUT, exist_ok=True)
    write_tokenizer_files(tok_dir, OUT)
    rng = random.Random(77)
    long_inputs = [" ".join(rng.choice(WORDS) for _ in range(n)) for n in (76, 80, 150, 400)]
    long_inputs.append("🎉" * 60)
    sentences = BASE + long_inputs
    sentences += generated(rng, 200 - len(sentences))
    assert len(sentences) == 200
    reference = ReferenceTokenizer(tok_dir)
    cases = [{"text": s, "input_ids": reference.encode(s)} for s in sentences]
    with open(os.path.join(OUT, "reference-tokenizations.json"), "w", encoding="utf-8") as f:
        json.dump({"source": "models/scripts/clip_tokenizer.py ReferenceTokenizer (OpenAI simple_tokenizer port)", "cases": cases}, f, ensure_ascii=False, indent=0)
    print(f"wrote {OUT}: tokenizer.json, tokenizer_config.json, {len(cases)} reference tokenizations "
          f"({sum(len(c['input_ids']) == 77 for c in cases)} truncated at 77)")


if __name__ == "__main__":
    main()
