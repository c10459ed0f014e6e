"""Pieces the Python recipes in models/scripts share: the trainers' command line, early stopping, ONNX
export and config (trainer.py), the TF.js detector ports' source files (tfjs_port.py), and the CLIP
fixture scripts' --shared option (clip_fixture.py).

Scripts import it as `common.<module>` after putting models/scripts on sys.path, as they already do for
their siblings."""
