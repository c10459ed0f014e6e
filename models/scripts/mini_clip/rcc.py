"""Unpacks Qt binary resource files (.rcc, format versions 1-3): GCompris ships its photos this way."""
import os
import struct
import zlib


def extract(path, outdir, keep=lambda name: True):
    b = open(path, "rb").read()
    if b[:4] != b"qres":
        raise ValueError(f"{path} is not a Qt resource file")
    version, tree, data, names = struct.unpack(">IIII", b[4:20])
    node_size = 22 if version >= 2 else 14
    written = []

    def name_at(offset):
        n = struct.unpack(">H", b[names + offset : names + offset + 2])[0]
        return b[names + offset + 6 : names + offset + 6 + 2 * n].decode("utf-16-be")

    def walk(i, prefix):
        o = tree + i * node_size
        name_offset, flags = struct.unpack(">IH", b[o : o + 6])
        name = name_at(name_offset) if i else ""
        if flags & 2:  # directory
            count, first = struct.unpack(">II", b[o + 6 : o + 14])
            for child in range(first, first + count):
                walk(child, prefix + name + "/" if i else "")
            return
        rel = prefix + name
        if not keep(rel):
            return
        data_offset = struct.unpack(">I", b[o + 10 : o + 14])[0]
        size = struct.unpack(">I", b[data + data_offset : data + data_offset + 4])[0]
        raw = b[data + data_offset + 4 : data + data_offset + 4 + size]
        if flags & 1:
            raw = zlib.decompress(raw[4:])
        elif flags & 4:
            return  # zstd-compressed entries are not needed here
        target = os.path.join(outdir, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(raw)
        written.append(target)

    walk(0, "")
    return written
