#!/usr/bin/python3
"""What each kind of round records as its objects, in the original generator's dialogs and in ours about the
same scenes (issue 41). count-other and exist-other count the objects no earlier round holds, so the two
grammars agree on them only if every kind of round holds the same objects.

For each template, the share of rounds whose recorded objects are as many as the count answer (count
questions), are empty exactly when the answer is "no" (exist questions), or are the one object asked about
(seek questions: the focus, or for seek-attr-rel the nearest object there); and per caption template how many
objects the caption holds. The original records a round's objects in graph.history[k].objects, ours in the
round's answer_objects.

Usage: /usr/bin/python3 models/scripts/clevr/recorded_objects.py ORIGINAL_DIR OURS_DIR
(each a folder with a clevr_dialog_<split>.json, as original_crosscheck.sh writes them)
"""
import argparse
import collections
import glob
import json
import os


def dialogs_of(folder):
    files = glob.glob(os.path.join(folder, "clevr_dialog_*.json"))
    if len(files) != 1:
        raise SystemExit(f"{folder}: expected one clevr_dialog_<split>.json, found {len(files)}")
    return [d for scene in json.load(open(files[0])) for d in scene["dialogs"]]


def original_rounds(dialogs):
    for d in dialogs:
        history = d["graph"]["history"]
        yield "caption", d["template_info"][0]["label"], None, [o["id"] for o in history[0]["objects"]], None
        for k, r in enumerate(d["dialog"]):
            h = history[k + 1]
            yield "round", r["template"], str(r["answer"]), [o["id"] for o in h["objects"]], h.get("focus_id")


def our_rounds(dialogs):
    for d in dialogs:
        yield "caption", d["caption_template"], None, d["caption_objects"], None
        for r in d["dialog"]:
            referents = r.get("referents") or []
            yield "round", r["template"], str(r["answer"]), r["answer_objects"], referents[0] if len(referents) == 1 else None


def tally(rounds):
    checks = collections.defaultdict(collections.Counter)
    captions = collections.defaultdict(list)
    for kind, template, answer, objects, focus in rounds:
        if kind == "caption":
            captions[template].append(len(objects))
            continue
        c = checks[template]
        c["rounds"] += 1
        if answer.isdigit():
            c["as many as the count"] += len(objects) == int(answer)
        elif answer in ("yes", "no"):
            c["empty exactly on no"] += (len(objects) == 0) == (answer == "no")
        else:
            c["one object"] += len(set(objects)) == 1
            c["the focus"] += focus is not None and sorted(set(objects)) == [focus]
    return checks, captions


def shares(counter):
    n = counter["rounds"]
    return ", ".join(f"{name} {100 * v / n:.0f}%" for name, v in counter.items() if name != "rounds") + f" ({n} rounds)" if n else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("original", help="folder with the original generator's dialogs")
    parser.add_argument("ours", help="folder with our dialogs about the same scenes")
    args = parser.parse_args()
    (a, a_caps), (b, b_caps) = tally(original_rounds(dialogs_of(args.original))), tally(our_rounds(dialogs_of(args.ours)))
    print("what a round records, by template: the original's | ours")
    for t in sorted(set(a) | set(b)):
        print(f"  {t:25s} {shares(a[t]):50s} | {shares(b[t])}")
    print("objects a caption records, mean (captions): the original's | ours")
    for t in sorted(set(a_caps) | set(b_caps)):
        mean = lambda v: f"{sum(v) / len(v):.2f} ({len(v)})" if v else "-"
        print(f"  {t:25s} {mean(a_caps[t]):12s} | {mean(b_caps[t])}")


if __name__ == "__main__":
    main()
