"""The CLIP fixture scripts' (make_tokenizer.py, make_test_pack.py, make_hub_fixtures.py) command line:
--shared names the team's shared folder, whose data/clip-tokenizer holds OpenAI's tokenizer files."""
import argparse
import os


def clip_tokenizer_source(root):
    """Parses --shared (default <repo>/../shared) and returns its data/clip-tokenizer folder."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.path.join(root, "..", "shared"))
    args = ap.parse_args()
    return os.path.join(args.shared, "data", "clip-tokenizer")
