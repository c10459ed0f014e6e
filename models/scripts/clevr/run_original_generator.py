"""Runs the original CLEVR-Dialog generator (satwikkottur/clevr-dialog, BSD-3) unchanged on a CLEVR scene file.

Usage: /usr/bin/python3 run_original_generator.py ORIGINAL_REPO SCENES_JSON OUT_JSON [--num_images N] [--num_beams 100] [--seed 0]

What this adds around the original's code, none of it touching its rules:
- seeds Python's and NumPy's random generators (the original never seeds), so one command gives one file;
- runs from the original's folder, so its templates/ are found, and writes no bytecode there;
- a scene the beam search fails on is skipped with the original's own "NOTE: Missing data" line, as its
  multi-worker path does; with --num_workers=1 the original would stop at the first such scene.
"""
import argparse
import json
import os
import random
import sys

import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('original')
    parser.add_argument('scenes')
    parser.add_argument('out')
    parser.add_argument('--num_images', type=int, default=-1)
    parser.add_argument('--num_beams', type=int, default=100)
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args()

    original = os.path.abspath(args.original)
    scenes = os.path.abspath(args.scenes)
    out = os.path.abspath(args.out)
    sys.dont_write_bytecode = True
    sys.path.insert(0, original)
    os.chdir(original)
    import generate_dataset  # noqa: E402  (the original's module, found on the path set above)
    import global_vars  # noqa: E402

    global_vars.initialize()
    generate_dataset.FLAGS([
        'generate_dataset.py',
        '--scene_path=' + scenes,
        '--save_path=' + out,
        '--num_workers=1',
        '--num_beams=%d' % args.num_beams,
        '--num_images=%d' % args.num_images,
    ])
    random.seed(args.seed)
    np.random.seed(args.seed)

    search = generate_dataset.generate_dialog_bfs

    def search_or_skip(scene, cap_templates, ques_templates):
        try:
            return search(scene, cap_templates, ques_templates)
        except Exception:  # the original's worker() skips a scene the same way
            print('NOTE: Missing data for %d' % scene['image_index'])
            return None

    generate_dataset.generate_dialog_bfs = search_or_skip
    generate_dataset.main(None)
    with open(out) as file:
        records = [r for r in json.load(file) if r is not None]
    with open(out, 'w') as file:
        json.dump(records, file)
    print('kept %d image records in %s' % (len(records), out))


if __name__ == '__main__':
    main()
