"""Extra image-text pairs for mini-clip v2, from Debian packages unpacked (not installed) under
<cache>/deb/<pkg> (see DATA-SURVEY.md, "v2 survey (measured)"):

- openclipart_pairs: Open Clip Art Library 0.18 drawings (`openclipart-png`, with the titles, descriptions
  and keywords read from the RDF/Dublin Core metadata of the matching SVG in `openclipart-svg`), kind "clipart";
- tuxpaint_pairs: Tux Paint stamps (`tuxpaint-stamps-default`) with their one-line English descriptions;
  photographic cut-outs are kind "stamp", drawn stamps kind "clipart";
- art4apps_pairs: Art4Apps cartoons shipped by `pysiogame`, named by their English word, kind "clipart";
- photo_pairs: a few real photographs from wallpaper, demo and sample-data packages, with captions written
  by hand after looking at each one, kind "photo";
- own_photo_*: the hand-captioned real photos of own_photos.json (and the e2e test photos). They are for
  choosing thresholds and caption templates only: force_heldout() moves every pair whose file is one of
  them (from this module or from prepare_data.py) to the held-out split.

Every pair has the format of prepare_data.py: {"id", "source", "file", "captions", "split", "kind", "licence"}.
The split comes from split_of (the same as prepare_data.py's) on a key that does not depend on the cache path.
Nothing here reads ../shared/data. Everything is deterministic (sorted walks, no randomness).

CLI: /usr/bin/python3 sources_v2.py --cache models/.cache/mini-clip [--fetch] [--summary] [--out pairs_v2.json]
"""
import argparse
import hashlib
import html
import json
import os
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import rcc  # noqa: E402

HELDOUT_PERCENT = 10


# split_of and article are the same as prepare_data.py's (which imports this module, so they are not imported from it).
def split_of(key):
    h = int(hashlib.sha1(key.encode()).hexdigest()[:8], 16)
    return "heldout" if h % 100 < HELDOUT_PERCENT else "train"


def article(phrase):
    return ("an " if phrase[:1].lower() in "aeiou" else "a ") + phrase


OWN_PHOTOS_JSON = os.path.join(HERE, "own_photos.json")
# GCompris activities whose photos prepare_data.py (v1) already turns into pairs.
V1_GCOMPRIS_ACTIVITIES = ("explore_monuments", "explore_world_animals", "explore_farm_animals", "explore_world_music", "details", "erase", "categorization")

# Debian packages read by this module (bookworm versions measured in DATA-SURVEY.md).
PACKAGES = ["openclipart-png", "openclipart-svg", "tuxpaint-stamps-default", "tuxpaint-data", "lomiri-wallpapers-16.04",
            "lomiri-wallpapers-20.04", "mate-backgrounds", "plasma-workspace-wallpapers", "python3-skimage", "python3-sklearn",
            "python-matplotlib-data", "kphotoalbum", "gcompris-qt-data", "pysiogame", "wamerican"]

MAX_PIXELS = 16_000_000  # 17 openclipart PNGs are 10k x 16k pixels: PIL refuses them as decompression bombs
MIN_SIDE = 64  # smaller PNGs are icons or fragments


# ----------------------------------------------------------------------------------------------- text

def load_vocab(cache=None, root=ROOT):
    """English words accepted in captions: the word list of Debian's `wamerican` (104k words, unpacked in
    <cache>/deb/wamerican, else /usr/share/dict/words), the whole-word tokens of the CLIP vocabulary and the words of
    the 80 COCO class names. Used to reject non-English titles (openclipart has Italian, French and Spanish ones)
    and file-name noise. Without wamerican only the CLIP words are left, which rejects good words such as
    "peacock" or "iguana" (they are split into several BPE tokens)."""
    vocab = json.load(open(os.path.join(root, "models", "clip-tokenizer", "tokenizer.json"), encoding="utf-8"))["model"]["vocab"]
    words = {t[:-4] for t in vocab if t.endswith("</w>") and t[:-4].isalpha()}
    for name in coco_classes(root):
        words.update(name.split())
    candidates = ([os.path.join(cache, "deb", "wamerican", "usr", "share", "dict", "american-english")] if cache else []) + ["/usr/share/dict/words"]
    for path in candidates:
        if os.path.exists(path):
            words.update(w.strip().lower() for w in open(path, encoding="utf-8", errors="replace") if w.strip().isalpha())
            break
    return words


def coco_classes(root=ROOT):
    src = open(os.path.join(root, "src", "engine", "detection", "cocoClasses.ts"), encoding="utf-8").read()
    return re.findall(r"'([^']+)'", src.split("COCO_CLASSES", 1)[1].split("]", 1)[0])


def clean_text(s):
    """Unescape HTML, drop tags and URLs, collapse spaces."""
    s = html.unescape(s or "")
    s = re.sub(r"<[^>]*>", " ", s)
    s = re.sub(r"https?://\S+|www\.\S+", " ", s)
    s = s.replace("\u2019", "'").replace("\u201c", "").replace("\u201d", "").replace("\u00a0", " ")
    return re.sub(r"\s+", " ", s).strip()


def words_of(phrase):
    return re.findall(r"[a-z]+", phrase.lower())


def english(phrase, vocab, min_frac=1.0):
    w = words_of(phrase)
    return bool(w) and sum(x in vocab for x in w) >= min_frac * len(w)


def first_sentence(text):
    text = clean_text(text)
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return (m.group(1) if m else text).strip()


# title words of one or two letters are dropped (initials, file-name fragments such as 'b w' or 'aj') unless listed here
SHORT_WORDS = {"a", "an", "of", "on", "in", "at", "to", "up", "and", "or", "the", "with", "for", "by", "tv", "ox", "ice", "red", "old", "new", "car", "box"}
NO_ARTICLE = ("a ", "an ", "the ", "my ", "your ", "his ", "her ", "our ", "their ", "this ", "that ", "some ", "another ")


def is_plural(phrase):
    """Plural head noun: the last word before the first preposition ('gold coins in a stack', 'balloons')."""
    words = phrase.split()
    for i, w in enumerate(words):
        if i and w in ("in", "on", "with", "of", "under", "at", "for", "and", "from", "over"):
            words = words[:i]
            break
    last = words[-1] if words else ""
    return last.endswith("s") and not last.endswith(("ss", "us", "is", "ous"))


def with_article(phrase):
    if is_plural(phrase) or phrase.startswith(NO_ARTICLE) or phrase.split()[0] in ("two", "three", "four", "five"):
        return phrase
    return article(phrase)


def dedupe(caps):
    out = []
    for c in caps:
        c = c.strip()
        if c and c not in out:
            out.append(c)
    return out


def source_defaults(deb, vocab, stats):
    """A source's vocabulary (load_vocab of the cache that holds deb, when not given) and its counter of
    what was kept and skipped (a new one, when not given)."""
    return (vocab if vocab is not None else load_vocab(os.path.dirname(os.path.abspath(deb))),
            stats if stats is not None else Counter())


def unpacked(source, stats, *roots):
    """Whether every folder a source reads is unpacked; if not, counts "<source>: package missing" once."""
    if all(os.path.isdir(r) for r in roots):
        return True
    stats[f"{source}: package missing"] += 1
    return False


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


# ------------------------------------------------------------------------------------------ openclipart

OC_SVG = os.path.join("usr", "share", "openclipart", "svg")
OC_PNG = os.path.join("usr", "share", "openclipart", "png")
NS = {"dc": "http://purl.org/dc/elements/1.1/", "cc": "http://web.resource.org/cc/", "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#"}
RDF_RESOURCE = "{%s}resource" % NS["rdf"]

# Folders of icon themes, geometric shapes, flags, maps, playing cards, gradients and examples: thousands of
# near-identical files whose titles are collection names ("gramastar" 1,375 times, "Lemon SVG theme" 416...).
OC_SKIP_DIRS = ("computer/icons", "computer/buttons", "buttons", "shapes", "special", "logos", "signs_and_symbols/flags",
                "signs_and_symbols/map_symbols", "signs_and_symbols/led", "recreation/games/cards", "geography", "unsorted")
OC_TITLE_NOISE = re.compile(r"collection|theme|icons?\b|iconset|clip ?art|gramastar|svg|s[iu]bmission|part of|various|"
                            r"^untitled|\bby\b|\bversion\b|^image\b|^drawing\b|^symbol\b|^card\b|^people$|^advertising$", re.I)
OC_KEYWORD_NOISE = {"hash", "icon", "icons", "theme", "computer", "clip", "art", "clipart", "unsorted", "special", "magick", "white",
                    "simple", "menu", "webpage", "action", "application", "shape", "shapes", "symbol", "sign", "signs", "button",
                    "buttons", "cartoon", "stock", "misc", "miscellany", "image", "picture", "drawing", "color", "colour", "black",
                    "outline", "line", "art", "design", "style", "svg", "png", "inkscape", "openclipart", "clipart", "public",
                    "domain", "new", "old", "big", "small", "nice", "cool", "free"}
OC_DESC_NOISE = re.compile(r"licen[cs]|public domain|copyright|clip ?art|collection|created|inkscape|svg|drawn (with|by)|made (with|by)|"
                           r"based on|version|download|upload|thanks|enjoy|part of|submitted|trace|vector|\beps\b|convert|printing|"
                           r"\blogo\b|theme|wallpaper|\bicons?\b|\bmy\b|\bi\b|\bi'm\b|please|\bfile\b", re.I)

OC_GENERIC_KEYWORDS = {"animal", "animals", "food", "people", "plant", "plants", "tool", "tools", "transport", "transportation",
                       "office", "building", "buildings", "recreation", "education", "science", "mammal", "holiday", "festive",
                       "equipment", "entertainment", "activities", "activity", "work", "device", "object", "objects"}
PUBLIC_DOMAIN_URIS = ("http://web.resource.org/cc/PublicDomain", "http://creativecommons.org/licenses/publicdomain/")
OC_LICENCE_PD = "public domain (Open Clip Art Library dedication, in the SVG metadata and the Debian copyright)"
OC_LICENCE_NOMETA = "public domain (Debian copyright of openclipart: the whole library is dedicated to the public domain)"


def svg_metadata(path):
    """Title, description, keywords, creator and licence URI from the RDF/Dublin Core block of an SVG.
    Raises on malformed XML (the caller counts and skips)."""
    root = ET.parse(path).getroot()
    linked = any(not (el.get("{http://www.w3.org/1999/xlink}href") or el.get("href") or "").startswith("data:")
                 for el in root.iter("{http://www.w3.org/2000/svg}image"))
    work = root.find(".//cc:Work", NS)
    if work is None:
        return {"title": "", "desc": "", "keywords": [], "creator": "", "licence": "", "linked_image": linked}

    def text(el):
        return clean_text(el.text) if el is not None and el.text else ""
    lic = work.find("cc:license", NS)
    return {"title": text(work.find("dc:title", NS)), "desc": text(work.find("dc:description", NS)),
            "keywords": [text(li) for li in work.findall("dc:subject/rdf:Bag/rdf:li", NS) if text(li)],
            "creator": text(work.find("dc:creator/cc:Agent/dc:title", NS)),
            "licence": lic.get(RDF_RESOURCE, "") if lic is not None else "", "linked_image": linked}




def clean_title(title, creator, vocab):
    """'Clipart by Nicu Buculei - pear' -> 'pear'; 'Dog 03 Drawn With Straight Lines' -> 'dog drawn with straight lines';
    'Rhinoceros 3D' -> 'rhinoceros'. Returns '' for collection names, file names, non-English or author-name titles."""
    t = clean_text(title)
    t = re.sub(r"^clip ?art by [^-]+-\s*", "", t, flags=re.I)
    if OC_TITLE_NOISE.search(t):
        return ""
    t = re.sub(r"\(.*?\)", " ", t)
    t = re.sub(r"([a-z])([A-Z])", r"\1 \2", t).replace("_", " ").replace("-", " ")
    t = re.sub(r"\b\w*\d\w*\b", " ", t)  # numbers, versions, '3D', 'v0.1'
    t = re.sub(r"[^A-Za-z' ]", " ", t).lower()
    w = [x for x in t.split() if len(x) > 2 or x in SHORT_WORDS]  # initials and file-name fragments ('b w', 'aj')
    names = set(words_of(creator))
    w = [x for x in w if x not in names]
    while w and w[-1] in ("bw", "and", "with", "of", "the", "a", "an", "in", "on", "for", "to", "at", "by"):
        w.pop()
    t = " ".join(w)
    if not 1 <= len(w) <= 6 or not english(t, vocab) or all(x in SHORT_WORDS for x in w):
        return ""
    return t


def clean_keywords(keywords, creator, folder_words, vocab):
    names = set(words_of(creator))
    out = []
    for k in keywords:
        k = k.replace("_", " ").replace("-", " ").strip().lower()
        if not re.fullmatch(r"[a-z]+( [a-z]+)?", k):
            continue
        w = k.split()
        if not 1 <= len(w) <= 2 or not english(k, vocab) or any(x in OC_KEYWORD_NOISE or x in names or len(x) < 3 for x in w):
            continue
        if k in folder_words:  # category words ("food", "animals") say little; keep at most the specific ones
            continue
        out.append(k)
    return dedupe(out)[:6]


def clean_description(desc, title, vocab):
    s = re.sub(r"\(.*?\)|\"", " ", first_sentence(desc))
    s = re.sub(r"\s+", " ", s).rstrip(".!?,;: ").strip().lower()
    s = re.sub(r"^(this|it) is (a |an )?(nice |simple |detailed |nice detailed )*(image|picture|drawing|clip art|clipart) of ", "", s)
    if not s or OC_DESC_NOISE.search(s) or not 3 <= len(s.split()) <= 20 or not english(s, vocab, 0.9):
        return ""
    if set(words_of(s)) <= set(words_of(title)) | {"a", "an", "the", "of", "in", "and", "with"}:
        return ""
    return s


def title_fits(title, rel, keywords):
    """A title shared by several drawings ('contour chipmunk' on contour_fox.svg, 'antenna' on mouse.svg) is
    kept only if one of its words is in the file name or the keywords."""
    name = re.sub(r"[^a-z]", "", os.path.basename(rel).lower())
    keys = {w for k in keywords for w in words_of(k)}
    return all(w in name or w in keys or (w.endswith("s") and w[:-1] in name) for w in title.split() if len(w) > 2)


def openclipart_pairs(deb, vocab=None, stats=None):
    """One pair per distinct PNG of openclipart-png whose SVG twin has a usable English title or description.
    The two packages have the same 8,121 relative paths (svg/<p>.svg <-> png/<p>.png); 663 SVG and 1,221 PNG
    paths are symlinks to duplicates, so pairs are deduplicated on the resolved PNG."""
    vocab, stats = source_defaults(deb, vocab, stats)
    svg_root, png_root = os.path.join(deb, "openclipart-svg", OC_SVG), os.path.join(deb, "openclipart-png", OC_PNG)
    if not unpacked("openclipart", stats, svg_root, png_root):
        return []
    items, seen = [], set()
    for dirpath, dirnames, filenames in os.walk(svg_root):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(".svg"):
                continue
            svg = os.path.join(dirpath, name)
            rel = os.path.relpath(svg, svg_root)[:-4]
            stats["openclipart: svg files"] += 1
            if os.path.islink(svg):
                stats["openclipart: skipped, svg is a symlink (duplicate)"] += 1
                continue
            if rel.startswith(OC_SKIP_DIRS):
                stats["openclipart: skipped, icon/shape/flag/map/card folder"] += 1
                continue
            png = os.path.join(png_root, rel + ".png")
            real = os.path.realpath(png)
            if not os.path.exists(real):
                stats["openclipart: skipped, no png"] += 1
                continue
            if real in seen:
                stats["openclipart: skipped, duplicate png"] += 1
                continue
            try:
                meta = svg_metadata(svg)
            except (ET.ParseError, OSError, UnicodeDecodeError, ValueError):
                stats["openclipart: skipped, malformed svg xml"] += 1
                continue
            if meta["linked_image"]:  # the PNG shows Inkscape's "Linked Image Not Found" placeholder
                stats["openclipart: skipped, svg links an external image"] += 1
                continue
            size = png_size(real)
            if not size or size[0] * size[1] > MAX_PIXELS or max(size) < MIN_SIDE:
                stats["openclipart: skipped, png over 16 Mpixel or under 64 px"] += 1
                continue
            uri = meta["licence"]
            if uri in PUBLIC_DOMAIN_URIS:
                licence = OC_LICENCE_PD
            elif uri == "":
                licence = OC_LICENCE_NOMETA
            elif "GPL" in uri:
                licence = "GPL-2.0 (artwork; cc:license in the SVG metadata)"
            else:
                stats["openclipart: skipped, other licence"] += 1
                continue
            seen.add(real)
            folder_words = set(re.split(r"[/_]", os.path.dirname(rel))) | OC_GENERIC_KEYWORDS
            keywords = clean_keywords(meta["keywords"], meta["creator"], folder_words, vocab)
            title = clean_title(meta["title"], meta["creator"], vocab)
            items.append((rel, png, licence, title, keywords, meta))
    title_count = Counter(it[3] for it in items if it[3])
    pairs = []
    for rel, png, licence, title, keywords, meta in items:
        if title and title_count[title] > 1 and not title_fits(title, rel, keywords):
            stats["openclipart: title dropped, shared title not matching the file"] += 1
            title = ""
        desc = clean_description(meta["desc"], title, vocab)
        if not title and not desc:
            stats["openclipart: skipped, no usable english title or description"] += 1
            continue
        caps = []
        if title:
            caps += [title, f"a drawing of {with_article(title)}", f"clip art of {with_article(title)}"]
        if desc:
            caps.append(desc)
        caps += [k for k in keywords if k != title]
        pairs.append({"id": "oc-" + rel, "source": "openclipart", "file": png, "captions": dedupe(caps),
                      "split": split_of("oc:" + rel), "kind": "clipart", "licence": licence})
    stats["openclipart: pairs"] += len(pairs)
    return pairs


# ------------------------------------------------------------------------------------------ tux paint

TP_STAMPS = os.path.join("usr", "share", "tuxpaint", "stamps")
TP_LICENCE = "GPL-2 (tuxpaint-stamps; Debian copyright 'Files: *', upstream CONTRIBUTORS.txt/CHANGES.txt)"
TP_SKIP_DIRS = ("symbols/alphabets", "symbols/math", "symbols/music", "symbols/shapes", "symbols/chess", "symbols/faces")

# Per-stamp licences stated in the package's CHANGES.txt (usr/share/doc/tuxpaint-stamps-default/changelog.gz) where they
# differ from the package licence. None = not usable (GFDL-only Wikimedia photos; stock.xchng photos without an open licence).
TP_LICENCE_OVERRIDES = {
    "seasonal/christmas/Christmas_pudding": None,  # GFDL (Musical Linguist, Wikimedia Commons)
    "household/Lightbulb": None,  # GFDL (KMJ, Wikimedia Commons)
    "food/fruit/Apricot_whole": None,  # GFDL (Benjamint444)
    "food/fruit/Cherry_Stella": None,  # GFDL (Benjamint444)
    "food/fruit/Strawberry2": None,  # GFDL (Benjamint444)
    "animals/insects/Woodlouse": None,  # GFDL (Joaquim Alves Gaspar)
    "animals/birds/helmeted_guineafowl": None,  # GFDL (Paul Venter)
    "food/fruit/pineapple": None,  # stock.xchng (sxc.hu) photo, no open licence stated
    "food/fruit/grapes": None,  # stock.xchng
    "food/fruit/sliced_orange": None,  # stock.xchng
    "food/fruit/sliced_lime": None,  # stock.xchng
    "animals/insects/Brown_slug": "CC-BY-SA-2.5 (Guttorm Flatabø, Wikimedia Commons; GFDL or CC-BY-SA-2.5)",
    "animals/birds/pelican": "CC-BY-SA-2.5 (Erinn Lynch)",
    "animals/birds/heron_greatblue": "CC-BY-SA-2.5 (Erinn Lynch)",
    "animals/birds/heron_greatblue_flying": "CC-BY-SA-2.5 (Erinn Lynch)",
    "town/monuments/inukshuk-photo": "CC-BY-SA-2.5 (Ansgar Walk, Wikimedia Commons)",
    "vehicles/emergency/firetruck": "CC-BY-2.5 (Aaron M. Lang, Wikimedia Commons)",
    "seasonal/christmas/Mince_Pie": "CC-BY-2.5 (Jmb, Wikimedia Commons)",
    "seasonal/christmas/Roast_turkey": "CC-BY-2.0 (Patrick Fitzgerald, Wikimedia Commons)",
    "seasonal/christmas/German_Christmas_toy": "CC-BY-SA (André Karwath, Wikimedia Commons)",
    "seasonal/christmas/Candy_cane_photo_1": "public domain (Kathleen French, Wikimedia Commons)",
    "seasonal/christmas/Candy_cane_photo_2": "public domain (Kathleen French, Wikimedia Commons)",
    "seasonal/christmas/Christmas_Tree_photo": "public domain (Jorge Barrios, Wikimedia Commons)",
    "medical/stethoscope": "public domain (Wikimedia Commons)",
    "medical/syringe": "public domain (US Drug Enforcement Administration)",
    "animals/fish/shrimp": "public domain (NOAA photo library)",
    "animals/fish/lobster": "public domain (NOAA photo library)",
    "animals/fish/seahorse": "public domain (NOAA photo library)",
    "military/vehicles/f22_raptor": "public domain (U.S. Air Force photo)",
    "plants/flowers/adeenia": "CC-BY-SA-3.0 (VHSS Irimpanam school, Kerala)",
    "plants/flowers/anthoorium": "CC-BY-SA-3.0 (VHSS Irimpanam school, Kerala)",
    "plants/flowers/appooppanthady": "CC-BY-SA-3.0 (VHSS Irimpanam school, Kerala)",
    "plants/flowers/bolsom": "CC-BY-SA-3.0 (VHSS Irimpanam school, Kerala)",
    "plants/flowers/chemparathi": "CC-BY-SA-3.0 (VHSS Irimpanam school, Kerala)",
    "plants/flowers/chuvanna_plastic_poo": "CC-BY-SA-3.0 (VHSS Irimpanam school, Kerala)",
}
# The photo/drawing test below was checked by eye on contact sheets of all 542 multi-colour PNG stamps; these
# are the stamps it gets wrong.
TP_FORCE_DRAWN = {"lion", "bluebird", "dinosaurSings", "bunny", "bunny-egg", "butterfly", "eddieCopter", "fireworks", "fireworks2",
                  "confetti", "stocking", "0_sun", "toilets", "dead_end_sign", "xing_school", "xing_school_mirror", "school_sign",
                  "old_naval_shell", "party-horn-in", "party-horn-out", "hard_candy", "chick", "spider_computer", "button"}
TP_FORCE_PHOTO = {"iguana", "albino_peahen", "rhino_black", "moon_3qt", "flower2", "flower5", "flower8", "grave-j", "truck", "toilet"}


def stamp_look(path):
    """(number of colours, fraction of flat pixels) of the opaque part of a PNG stamp. Photographic cut-outs
    have almost no flat pixels (sensor noise); drawings are mostly flat or smooth gradients."""
    import numpy as np
    from PIL import Image
    a = np.asarray(Image.open(path).convert("RGBA"))
    m = a[..., 3] > 200
    rgb = a[..., :3][m].astype(np.int64)
    colours = len(np.unique(rgb @ np.array([65536, 256, 1]))) if len(rgb) else 0
    g = a[..., :3].astype(np.float32).mean(-1)
    dx, dy = np.abs(np.diff(g, axis=1))[:-1, :], np.abs(np.diff(g, axis=0))[:, :-1]
    mm = m[:-1, :-1] & m[1:, :-1] & m[:-1, 1:]
    e = (dx + dy)[mm]
    return colours, float((e < 1).mean()) if len(e) else 1.0


def stamp_captions(desc, stem, kind, vocab):
    """'A badger.' -> ['a badger', 'a photo of a badger', 'badger']. A description that is a sentence rather than a
    noun phrase ('A boxcar is used to carry livestock.') is kept as it is when it names the stamp's file name; the
    file name ('toilet', 'crash cymbal') gives the noun when it occurs word for word in the description."""
    s = re.sub(r"\(.*?\)", " ", first_sentence(desc)).replace("\u2014", ", ")
    s = re.sub(r"\s+", " ", s).rstrip(".!?,;: ").strip().strip('"').lower()
    if not s or not english(s, vocab, 0.6) or len(s.split()) > 14:
        s = ""
    what = "a photo of" if kind == "stamp" else "a drawing of"
    name = re.sub(r"[-_]?\d+$", "", stem).replace("_", " ").replace("-", " ").strip().lower()
    name_ok = bool(name) and english(name, vocab) and len(name.split()) <= 3
    caps = []
    m = re.match(r"^(a|an|some|the|two|three)\s+(.+)$", s)
    sentence = re.search(r"\b(is|are|was|were|can|has|have|will|do|does|stands?|used)\b", s)
    if m and not sentence and len(s.split()) <= 8:
        caps += [s, f"{what} {s}", m.group(2)]
    elif s and name_ok and set(name.split()) & set(words_of(s)):
        caps.append(s)
    if name_ok and re.search(r"\b%s\b" % re.escape(name), desc.lower()) and name not in caps:
        caps += [with_article(name), f"{what} {with_article(name)}"]
    return dedupe(caps)


def tuxpaint_pairs(deb, vocab=None, stats=None):
    vocab, stats = source_defaults(deb, vocab, stats)
    root = os.path.join(deb, "tuxpaint-stamps-default", TP_STAMPS)
    if not unpacked("tuxpaint", stats, root):
        return []
    pairs = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        stems = sorted({os.path.splitext(f)[0] for f in filenames if f.endswith((".png", ".svg"))})
        for stem in stems:
            rel = os.path.relpath(os.path.join(dirpath, stem), root)
            stats["tuxpaint: stamps"] += 1
            png = os.path.join(dirpath, stem + ".png")
            txt = os.path.join(dirpath, stem + ".txt")
            if rel.startswith(TP_SKIP_DIRS):
                stats["tuxpaint: skipped, letters/maths/music/chess/shape symbols"] += 1
                continue
            if not os.path.exists(png):
                stats["tuxpaint: skipped, svg only (needs rasterising)"] += 1
                continue
            if not os.path.exists(txt):
                stats["tuxpaint: skipped, no description (mirror copies)"] += 1
                continue
            licence = TP_LICENCE_OVERRIDES.get(rel, TP_LICENCE)
            if licence is None:
                stats["tuxpaint: skipped, licence not open (GFDL-only or stock photo)"] += 1
                continue
            try:
                colours, flat = stamp_look(png)
            except Exception:  # noqa: BLE001 - a broken PNG is skipped and counted
                stats["tuxpaint: skipped, unreadable png"] += 1
                continue
            if colours <= 1:
                stats["tuxpaint: skipped, one-colour tint mask"] += 1
                continue
            cartoon = "/cartoon" in "/" + os.path.dirname(rel)
            photo = stem in TP_FORCE_PHOTO or (not cartoon and stem not in TP_FORCE_DRAWN and flat < 0.2)
            kind = "stamp" if photo else "clipart"
            desc = open(txt, encoding="utf-8", errors="replace").read().splitlines()
            caps = stamp_captions(desc[0] if desc else "", stem, kind, vocab)
            if not caps:
                stats["tuxpaint: skipped, no usable english description"] += 1
                continue
            stats[f"tuxpaint: {'photographic cut-outs' if photo else 'drawn stamps'}"] += 1
            pairs.append({"id": "tp-" + rel, "source": "tuxpaint-stamps-default", "file": png, "captions": caps,
                          "split": split_of("tp:" + rel), "kind": kind, "licence": licence})
    stats["tuxpaint: pairs"] += len(pairs)
    return pairs


# ------------------------------------------------------------------------------------------ art4apps (pysiogame)

A4A_DIR = os.path.join("usr", "share", "games", "pysiogame", "res", "images", "art4apps")
A4A_FOLDERS = ("animals", "body", "clothes_n_accessories", "construction", "food", "fruit_n_veg", "jobs", "nature", "people", "transport")
A4A_LICENCE = "CC-BY-SA (Art4Apps by Smart4Kids, art4apps.org, per pysiogame's CREDITS.txt; version not stated)"


def art4apps_pairs(deb, vocab=None, stats=None):
    """Art4Apps cartoons shipped by pysiogame: 200x200 JPEGs on white named by their English word
    ('hot_dog.jpg'). The 'actions' and 'sport' folders are verbs ('ate', 'jog') and are left out."""
    vocab, stats = source_defaults(deb, vocab, stats)
    root = os.path.join(deb, "pysiogame", A4A_DIR)
    if not unpacked("art4apps", stats, root):
        return []
    pairs = []
    for folder in A4A_FOLDERS:
        for name in sorted(os.listdir(os.path.join(root, folder))):
            if not name.endswith(".jpg"):
                continue
            word = name[:-4].replace("_", " ").lower()
            if not english(word, vocab):
                stats["art4apps: skipped, not an english word"] += 1
                continue
            rel = f"{folder}/{name[:-4]}"
            caps = [word, f"a drawing of {with_article(word)}", f"a cartoon of {with_article(word)}"]
            pairs.append({"id": "a4a-" + rel, "source": "pysiogame/art4apps", "file": os.path.join(root, folder, name), "captions": caps,
                          "split": split_of("a4a:" + rel), "kind": "clipart", "licence": A4A_LICENCE})
    stats["art4apps: pairs"] += len(pairs)
    return pairs


# ------------------------------------------------------------------------------------------ photos

# Real photographs that are neither in own_photos.json nor e2e candidates, captioned by hand after viewing each.
# (package, path in the package, licence, captions)
TRAIN_PHOTOS = [
    ("tuxpaint-data", "usr/share/tuxpaint/templates/burnt_bark.jpg", "GPL-2+ (Bill Kendrick, tuxpaint-data)", ["burnt tree bark", "a close up of charred bark"]),
    ("tuxpaint-data", "usr/share/tuxpaint/templates/mossy_bark.jpg", "GPL-2+ (Bill Kendrick, tuxpaint-data)", ["tree bark covered with moss and lichen", "a close up of grey bark"]),
    ("tuxpaint-data", "usr/share/tuxpaint/templates/mossy_log.jpg", "GPL-2+ (Bill Kendrick, tuxpaint-data)", ["a mossy log in the forest", "a fallen log covered with green moss"]),
    ("tuxpaint-data", "usr/share/tuxpaint/templates/mudstone.jpg", "GPL-2+ (Bill Kendrick, tuxpaint-data)", ["dark grey mudstone", "a close up of a rock surface"]),
    ("tuxpaint-data", "usr/share/tuxpaint/templates/ocean_splash.jpg", "GPL-2+ (Bill Kendrick, tuxpaint-data)", ["white foam splashing on dark water", "a close up of sea spray"]),
    ("tuxpaint-data", "usr/share/tuxpaint/templates/rocks.jpg", "GPL-2+ (Bill Kendrick, tuxpaint-data)", ["a beach of smooth round pebbles", "many grey and pink stones"]),
    ("tuxpaint-data", "usr/share/tuxpaint/templates/spiders_web.jpg", "GPL-2+ (Bill Kendrick, tuxpaint-data)", ["a spider web in front of plants", "a thin spider web lit by the sun"]),
    ("tuxpaint-data", "usr/share/tuxpaint/templates/sun_behind_leaves.jpg", "GPL-2+ (Bill Kendrick, tuxpaint-data)", ["sunlight through green leaves", "the sun shining behind leaves on a branch"]),
    ("tuxpaint-data", "usr/share/tuxpaint/templates/trees_above.jpg", "GPL-2+ (Bill Kendrick, tuxpaint-data)", ["looking up at trees against the sky", "green tree tops and a blue sky"]),
    ("tuxpaint-data", "usr/share/tuxpaint/templates/trees_at_dusk.jpg", "GPL-2+ (Bill Kendrick, tuxpaint-data)", ["bare tree branches against a pink evening sky", "dark tree silhouettes at dusk"]),
    ("tuxpaint-data", "usr/share/tuxpaint/templates/wool_mill_machine.jpg", "GPL-2+ (Bill Kendrick, tuxpaint-data)", ["an old machine with gears and belts", "rusty wheels of a wool mill machine"]),
    ("lomiri-wallpapers-16.04", "usr/share/backgrounds/Picture_1A_by_freespace.jpg", "CC-BY-4.0 (Trevor \"Freespace\")", ["a row of colorful paint brushes", "paint brushes with bright bristles"]),
    ("lomiri-wallpapers-16.04", "usr/share/backgrounds/free_by_Peter_Nerlich.jpg", "CC-BY-SA-4.0 (Peter Nerlich)", ["a small toy bird hanging under round lamps", "a wooden bird ornament below a ceiling light"]),
    ("lomiri-wallpapers-16.04", "usr/share/backgrounds/Bridge_by_Sander_Klootwijk.jpg", "CC-BY-SA-4.0 (Sander Klootwijk)", ["bridge cables against a blue sky", "steel cables above a wide bay"]),
    ("lomiri-wallpapers-16.04", "usr/share/backgrounds/Dragonfly_by_Bolly.jpg", "CC-BY-SA-4.0 (Bolly)", ["a dragonfly on a twig among leaves", "green leaves against a blue sky"]),
    ("mate-backgrounds", "usr/share/backgrounds/mate/nature/GreenMeadow.jpg", "GPL-2+ (Timothy Schellhase, Lapo Calamandrei)", ["fresh green grass", "a close up of green blades of grass"]),
    ("mate-backgrounds", "usr/share/backgrounds/mate/nature/FreshFlower.jpg", "GPL-2+ (Jens Ansorg)", ["a close up of an orange flower", "orange petals of a flower"]),
    ("mate-backgrounds", "usr/share/backgrounds/mate/nature/Garden.jpg", "GPL-2+ (Charles Barbin)", ["a red flower in a garden", "a red and yellow flower in the sun"]),
    ("mate-backgrounds", "usr/share/backgrounds/mate/nature/RainDrops.jpg", "GPL-2+ (mate-backgrounds)", ["rain drops on green leaves", "water drops on long green leaves"]),
    ("mate-backgrounds", "usr/share/backgrounds/mate/nature/YellowFlower.jpg", "GPL-2+ (Charles Barbin)", ["a yellow flower", "a close up of yellow petals"]),
    ("mate-backgrounds", "usr/share/backgrounds/mate/nature/Aqua.jpg", "GPL-2+ (Charles Barbin)", ["a drop of water falling into water", "a water splash in blue light"]),
    ("plasma-workspace-wallpapers", "usr/share/wallpapers/BytheWater/contents/images/1600x1200.jpg", "LGPL-3.0 (Maciej Wiklo)", ["wooden planks by a lake", "a wooden deck at the edge of the water"]),
    ("plasma-workspace-wallpapers", "usr/share/wallpapers/FallenLeaf/contents/images/1600x1200.jpg", "LGPL-3.0 (Martin Klapetek)", ["a fallen autumn leaf on the ground", "a brown leaf in the autumn sun"]),
    ("python3-skimage", "usr/lib/python3/dist-packages/skimage/data/hubble_deep_field.jpg", "public domain (NASA, Hubble)", ["galaxies in deep space", "many small galaxies on a black sky"]),
]


def photo_pairs(deb, stats=None):
    stats = stats if stats is not None else Counter()
    pairs = []
    for pkg, path, licence, caps in TRAIN_PHOTOS:
        f = os.path.join(deb, pkg, path)
        if not os.path.exists(f):
            stats["photos: missing (package not unpacked)"] += 1
            continue
        key = f"{pkg}:{path}"
        pairs.append({"id": "ph-" + key, "source": pkg, "file": f, "captions": list(caps),
                      "split": split_of("ph:" + key), "kind": "photo", "licence": licence})
    stats["photos: pairs"] += len(pairs)
    return pairs


# ------------------------------------------------------------------------------------------ own photos

E2E_CANDIDATES = [
    # (package, path in the package, object, licence, author)
    ("gcompris-qt-data", "usr/share/gcompris-qt/rcc/explore_farm_animals.rcc!gcompris/src/activities/explore_farm_animals/resource/animals/dog.webp",
     "dog", "public domain", "Hans Kemperman (Wikimedia Commons)"),
    ("gcompris-qt-data", "usr/share/gcompris-qt/rcc/explore_farm_animals.rcc!gcompris/src/activities/explore_farm_animals/resource/animals/sheep.webp",
     "sheep", "CC0-1.0", "Rob Mitchell (Wikimedia Commons)"),
    ("gcompris-qt-data", "usr/share/gcompris-qt/rcc/explore_farm_animals.rcc!gcompris/src/activities/explore_farm_animals/resource/animals/cow.webp",
     "cow", "public domain", "Dohduhdah (Wikimedia Commons)"),
    ("python3-skimage", "usr/lib/python3/dist-packages/skimage/data/chelsea.png", "cat", "CC0-1.0", "Stefan van der Walt"),
    ("python3-skimage", "usr/lib/python3/dist-packages/skimage/data/astronaut.png", "person", "public domain", "NASA"),
]


def own_photos(path=OWN_PHOTOS_JSON):
    return json.load(open(path, encoding="utf-8"))


def own_photo_keys(include_e2e=True, path=OWN_PHOTOS_JSON):
    """'package:path_in_package' of every photo reserved for evaluation (own_photos.json, plus the e2e photos)."""
    keys = {f"{p['package']}:{p['path_in_package']}" for p in own_photos(path)}
    if include_e2e:
        keys |= {f"{pkg}:{path}" for pkg, path, *_ in E2E_CANDIDATES}
    return keys


def file_key(file):
    """'package:path_in_package' of a pair's file: <...>/deb/<pkg>/<path> for unpacked packages, and for GCompris
    files unpacked from a Qt resource (prepare_data.py's <cache>/gcompris/gcompris/src/activities/<act>/...)
    'gcompris-qt-data:usr/share/gcompris-qt/rcc/<act>.rcc!gcompris/src/activities/<act>/...'. None if unknown."""
    f = file.replace(os.sep, "/")
    m = re.search(r"/(gcompris/src/activities/([^/]+)/.+)$", f)
    if m:
        return f"gcompris-qt-data:usr/share/gcompris-qt/rcc/{m.group(2)}.rcc!{m.group(1)}"
    m = re.search(r".*/deb/([^/]+)/(usr/.+)$", f)
    return f"{m.group(1)}:{m.group(2)}" if m else None


def own_photo_ids(pairs, include_e2e=True):
    """Ids of the pairs (from prepare_data.py or this module) whose image is an evaluation photo."""
    keys = own_photo_keys(include_e2e)
    return {p["id"] for p in pairs if "file" in p and file_key(p["file"]) in keys}


def force_heldout(pairs, include_e2e=True):
    """Moves the evaluation photos to the held-out split, in place; returns how many pairs moved."""
    ids = own_photo_ids(pairs, include_e2e)
    moved = 0
    for p in pairs:
        if p["id"] in ids and p["split"] != "heldout":
            p["split"] = "heldout"
            moved += 1
    return moved


def resolve(cache, package, path):
    """Absolute file for a (package, path_in_package); GCompris resources are unpacked on demand into
    <cache>/gcompris-v2 (never into prepare_data.py's <cache>/gcompris, which it only fills when absent)."""
    deb = os.path.join(cache, "deb")
    if "!" not in path:
        return os.path.join(deb, package, path)
    rcc_path, inner = path.split("!", 1)
    out = os.path.join(cache, "gcompris-v2")
    target = os.path.join(out, inner)
    if not os.path.exists(target) and os.path.exists(os.path.join(deb, package, rcc_path)):
        rcc.extract(os.path.join(deb, package, rcc_path), out)
    return target


def own_photo_pairs(cache, include_gcompris=True, stats=None):
    """The own_photos.json photos as held-out pairs with their two hand-written captions, kind "photo".
    With include_gcompris=False, the GCompris ones that prepare_data.py already produces are left out.
    Photos whose package is not unpacked in <cache>/deb are skipped (and counted)."""
    stats = stats if stats is not None else Counter()
    pairs = []
    for p in own_photos():
        act = p["path_in_package"].split("!gcompris/src/activities/")[-1].split("/")[0]
        if p["package"] == "gcompris-qt-data" and not include_gcompris and act in V1_GCOMPRIS_ACTIVITIES:
            continue
        key = f"{p['package']}:{p['path_in_package']}"
        file = resolve(cache, p["package"], p["path_in_package"])
        if not os.path.exists(file):
            stats["own photos: missing (package not unpacked)"] += 1
            continue
        pairs.append({"id": "own-" + key, "source": "own:" + p["source"], "file": file,
                      "captions": list(p["captions"]), "split": "heldout", "kind": "photo", "licence": p["licence"],
                      "objects": list(p["objects"]), "scene": p["scene"]})
    return pairs


# ------------------------------------------------------------------------------------------ all

def all_pairs(cache, stats=None, include_own=False):
    """openclipart + Tux Paint stamps + Art4Apps cartoons + the training photos; with include_own, also the own_photos.json photos
    (held out) that prepare_data.py does not already produce. force_heldout() is applied."""
    stats = stats if stats is not None else Counter()
    deb = os.path.join(cache, "deb")
    vocab = load_vocab(cache)
    pairs = openclipart_pairs(deb, vocab, stats) + tuxpaint_pairs(deb, vocab, stats) + art4apps_pairs(deb, vocab, stats) + photo_pairs(deb, stats)
    if include_own:
        pairs += own_photo_pairs(cache, include_gcompris=False, stats=stats)
    stats["own photos forced to held-out"] += force_heldout(pairs)
    return pairs


def fetch(cache, packages=PACKAGES):
    """apt-get download + dpkg -x of the packages not yet unpacked in <cache>/deb (nothing is installed)."""
    deb = os.path.join(cache, "deb")
    os.makedirs(deb, exist_ok=True)
    for pkg in packages:
        if os.path.isdir(os.path.join(deb, pkg)):
            continue
        subprocess.run(["apt-get", "download", pkg], cwd=deb, check=True)
        debs = sorted(f for f in os.listdir(deb) if f.startswith(pkg + "_") and f.endswith(".deb"))
        subprocess.run(["dpkg", "-x", debs[-1], pkg], cwd=deb, check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", required=True, help="the cache folder of prepare_data.py (reads <cache>/deb/<pkg>)")
    ap.add_argument("--fetch", action="store_true", help="apt-get download and unpack the missing packages first")
    ap.add_argument("--summary", action="store_true", help="print counts per source, kind and split, and what was skipped")
    ap.add_argument("--include-own", action="store_true", help="also output the own_photos.json photos (held out)")
    ap.add_argument("--out", help="write the pairs to this JSON file")
    args = ap.parse_args()
    if args.fetch:
        fetch(args.cache)
    stats = Counter()
    pairs = all_pairs(args.cache, stats, include_own=args.include_own)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(pairs, f)
    if args.summary or not args.out:
        counts = Counter((p["source"], p["kind"], p["split"]) for p in pairs)
        print(f"{'source':36s} {'kind':8s} {'split':8s} pairs")
        for (source, kind, split), n in sorted(counts.items()):
            print(f"{source:36s} {kind:8s} {split:8s} {n}")
        print(f"total {len(pairs)} pairs, {sum(len(p['captions']) for p in pairs)} captions")
        print("licences:", dict(Counter(p["licence"].split(" (")[0] for p in pairs).most_common()))
        for k, v in sorted(stats.items()):
            print(f"  {k}: {v}")


if __name__ == "__main__":
    main()
