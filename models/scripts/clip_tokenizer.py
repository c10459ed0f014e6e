"""CLIP's byte-level BPE tokenizer: the Hugging Face tokenizer.json builder and an
independent reference implementation (a port of OpenAI's simple_tokenizer.py) that the
fixtures use, so the TypeScript tokenizer is checked against code that shares nothing with it."""
import gzip
import html
import json
import os
from functools import lru_cache

import regex

SOT, EOT = "<|startoftext|>", "<|endoftext|>"
MAX_LENGTH = 77
# CLIP's pre-tokenizer pattern (OpenAI simple_tokenizer.py, as in HF CLIPTokenizerFast).
PATTERN = r"""<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"""


@lru_cache()
def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(2**8):
        if b not in bs:
            bs.append(b)
            cs.append(2**8 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


def read_merges(shared_dir):
    """The 48,894 merges CLIP uses, from the original merges list (no header line)."""
    path = os.path.join(shared_dir, "bpe_simple_vocab_16e6.txt")
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        lines = f.read().split("\n")
    # OpenAI: merges = merges[1:49152-256-2+1] on a file whose first line is a header;
    # the shared copy has no header, so take the first 48,894 lines.
    return [tuple(line.split()) for line in lines[: 49152 - 256 - 2]]


def build_vocab(merges):
    vocab = list(bytes_to_unicode().values())
    vocab = vocab + [v + "</w>" for v in vocab]
    for merge in merges:
        vocab.append("".join(merge))
    vocab.extend([SOT, EOT])
    return {token: i for i, token in enumerate(vocab)}


class ReferenceTokenizer:
    """OpenAI's simple_tokenizer, minus ftfy (not packaged here); whitespace and case as CLIP."""

    def __init__(self, shared_dir):
        merges = read_merges(shared_dir)
        self.encoder = build_vocab(merges)
        self.bpe_ranks = dict(zip(merges, range(len(merges))))
        self.byte_encoder = bytes_to_unicode()
        self.cache = {SOT: SOT, EOT: EOT}
        self.pat = regex.compile(PATTERN, regex.IGNORECASE)

    def bpe(self, token):
        if token in self.cache:
            return self.cache[token]
        word = tuple(token[:-1]) + (token[-1] + "</w>",)
        pairs = {(a, b) for a, b in zip(word, word[1:])}
        if not pairs:
            return token + "</w>"
        while True:
            bigram = min(pairs, key=lambda p: self.bpe_ranks.get(p, float("inf")))
            if bigram not in self.bpe_ranks:
                break
            first, second = bigram
            new_word = []
            i = 0
            while i < len(word):
                try:
                    j = word.index(first, i)
                except ValueError:
                    new_word.extend(word[i:])
                    break
                new_word.extend(word[i:j])
                i = j
                if word[i] == first and i < len(word) - 1 and word[i + 1] == second:
                    new_word.append(first + second)
                    i += 2
                else:
                    new_word.append(word[i])
                    i += 1
            word = tuple(new_word)
            if len(word) == 1:
                break
            pairs = {(a, b) for a, b in zip(word, word[1:])}
        out = " ".join(word)
        self.cache[token] = out
        return out

    def encode(self, text):
        import unicodedata

        text = unicodedata.normalize("NFC", text)
        text = regex.sub(r"\s+", " ", text).strip().lower()
        ids = []
        for token in regex.findall(self.pat, text):
            token = "".join(self.byte_encoder[b] for b in token.encode("utf-8"))
            ids.extend(self.encoder[t] for t in self.bpe(token).split(" "))
        ids = ids[: MAX_LENGTH - 2]
        return [self.encoder[SOT]] + ids + [self.encoder[EOT]]


def tokenizer_json(shared_dir):
    """tokenizer.json in the Hugging Face tokenizers format, as CLIPTokenizerFast saves it."""
    merges = read_merges(shared_dir)
    vocab = build_vocab(merges)
    special = lambda i, c: {"id": i, "content": c, "single_word": False, "lstrip": False, "rstrip": False, "normalized": True, "special": True}
    return {
        "version": "1.0",
        "truncation": {"direction": "Right", "max_length": MAX_LENGTH, "strategy": "LongestFirst", "stride": 0},
        "padding": None,
        "added_tokens": [special(vocab[SOT], SOT), special(vocab[EOT], EOT)],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "NFC"},
                {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
                {"type": "Lowercase"},
            ],
        },
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": PATTERN}, "behavior": "Removed", "invert": True},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        },
        "post_processor": {
            "type": "RobertaProcessing",
            "sep": [EOT, vocab[EOT]],
            "cls": [SOT, vocab[SOT]],
            "trim_offsets": False,
            "add_prefix_space": False,
        },
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": EOT,
            "continuing_subword_prefix": "",
            "end_of_word_suffix": "</w>",
            "fuse_unk": False,
            "byte_fallback": False,
            "vocab": vocab,
            "merges": [" ".join(m) for m in merges],
        },
    }


TOKENIZER_CONFIG = {
    "add_prefix_space": False,
    "bos_token": SOT,
    "clean_up_tokenization_spaces": True,
    "do_lower_case": True,
    "eos_token": EOT,
    "errors": "replace",
    "model_max_length": MAX_LENGTH,
    "pad_token": EOT,
    "tokenizer_class": "CLIPTokenizer",
    "unk_token": EOT,
}


def write_tokenizer_files(shared_dir, out_dir):
    with open(os.path.join(out_dir, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_json(shared_dir), f, ensure_ascii=False)
    with open(os.path.join(out_dir, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(TOKENIZER_CONFIG, f, indent=2)
