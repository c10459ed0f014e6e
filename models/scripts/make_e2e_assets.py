"""Makes the small files the end-to-end tests upload: a JPEG photo, a PNG photo, a JPEG whose
Huffman tables are broken (the header still parses, decoding fails) and a text file."""
import io
import os

import numpy as np
from PIL import Image, ImageDraw

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "e2e", "assets")


def picture(w, h, seed):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    sky = np.stack([90 + 0 * xx, 150 + yy * 60 / h, 230 - yy * 40 / h], -1)
    img = Image.fromarray(np.clip(sky + rng.normal(0, 4, sky.shape), 0, 255).astype(np.uint8), "RGB")
    d = ImageDraw.Draw(img)
    d.rectangle([0, int(h * 0.7), w, h], fill=(70, 140, 60))
    d.ellipse([int(w * 0.7), int(h * 0.1), int(w * 0.85), int(h * 0.3)], fill=(250, 220, 80))
    return img


def main():
    os.makedirs(OUT, exist_ok=True)
    buf = io.BytesIO()
    picture(400, 300, 1).save(buf, "JPEG", quality=85)
    jpeg = buf.getvalue()
    with open(os.path.join(OUT, "meadow.jpg"), "wb") as f:
        f.write(jpeg)
    picture(240, 320, 2).save(os.path.join(OUT, "sky.png"))
    # Corrupt: every Huffman table claims 255 codes of each length, which no decoder accepts.
    broken = bytearray(jpeg)
    i = 2
    while i < len(broken) - 4:
        marker, length = broken[i + 1], (broken[i + 2] << 8) | broken[i + 3]
        if marker == 0xC4:
            broken[i + 5 : i + 21] = b"\xff" * 16
        if marker == 0xDA:
            break
        i += 2 + length
    with open(os.path.join(OUT, "broken.jpg"), "wb") as f:
        f.write(bytes(broken))
    with open(os.path.join(OUT, "notes.txt"), "w") as f:
        f.write("These are my notes, not a photo.\n")
    print("wrote", sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
