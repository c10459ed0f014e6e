"""CLIP image preprocessing as Hugging Face's CLIPImageProcessor does it with PIL:
convert to RGB, bicubic resize of the shortest edge, center crop, rescale, normalize."""
import numpy as np
from PIL import Image


def resized_crop(image: Image.Image, cfg) -> Image.Image:
    """The 8-bit crop before rescaling: shortest-edge bicubic resize, then center crop."""
    image = image.convert("RGB")
    w, h = image.size
    short = cfg["size"]["shortest_edge"]
    # get_resize_output_image_size: the long side is truncated, not rounded.
    new_w, new_h = (short, int(short * h / w)) if w <= h else (int(short * w / h), short)
    image = image.resize((new_w, new_h), resample=Image.BICUBIC, reducing_gap=None)
    ch, cw = cfg["crop_size"]["height"], cfg["crop_size"]["width"]
    top, left = (new_h - ch) // 2, (new_w - cw) // 2
    return image.crop((left, top, left + cw, top + ch))


def preprocess(image: Image.Image, cfg) -> np.ndarray:
    """pixel_values for one image, CHW float32."""
    x = np.asarray(resized_crop(image, cfg), dtype=np.float32) * np.float32(cfg["rescale_factor"])
    x = (x - np.array(cfg["image_mean"], dtype=np.float32)) / np.array(cfg["image_std"], dtype=np.float32)
    return x.transpose(2, 0, 1).astype(np.float32)
