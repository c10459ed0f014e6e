"""CLIP image preprocessing as Hugging Face's CLIPImageProcessor does it with PIL:
convert to RGB, bicubic resize of the shortest edge, center crop, rescale, normalize."""
import numpy as np
from PIL import Image


def preprocess(image: Image.Image, cfg) -> np.ndarray:
    image = image.convert("RGB")
    w, h = image.size
    short = cfg["size"]["shortest_edge"]
    if w <= h:
        new_w, new_h = short, int(short * h / w)
    else:
        new_w, new_h = int(short * w / h), short
    image = image.resize((new_w, new_h), resample=Image.BICUBIC, reducing_gap=None)
    ch, cw = cfg["crop_size"]["height"], cfg["crop_size"]["width"]
    top, left = (new_h - ch) // 2, (new_w - cw) // 2
    image = image.crop((left, top, left + cw, top + ch))
    x = np.asarray(image, dtype=np.float32) * np.float32(cfg["rescale_factor"])
    x = (x - np.array(cfg["image_mean"], dtype=np.float32)) / np.array(cfg["image_std"], dtype=np.float32)
    return x.transpose(2, 0, 1).astype(np.float32)
