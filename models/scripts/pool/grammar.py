"""Text utilities of write_dialogues.py."""
import re
import unicodedata


def norm(s):
    """A label phrase as it is compared: no accents, lower case, no apostrophes, words split by single spaces."""
    s = unicodedata.normalize("NFKD", s)
    s = "".join(c for c in s if not unicodedata.combining(c))
    s = s.lower().replace("\u2019", "'").replace("'", "")
    return re.sub(r"[^a-z0-9]+", " ", s).strip()
