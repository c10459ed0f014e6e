"""Extract Qt binary resource (.rcc) files. Usage: rcc_extract.py FILE.rcc OUTDIR"""
import struct, zlib, sys, os
def extract(path, outdir):
    b = open(path, 'rb').read()
    assert b[:4] == b'qres', path
    ver, tree, data, names = struct.unpack('>IIII', b[4:20])
    node_sz = 22 if ver >= 2 else 14
    def name(off):
        n = struct.unpack('>H', b[names+off:names+off+2])[0]
        return b[names+off+6:names+off+6+2*n].decode('utf-16-be')
    out = []
    def walk(i, prefix):
        o = tree + i*node_sz
        noff, flags = struct.unpack('>IH', b[o:o+6])
        nm = name(noff) if i else ''
        if flags & 2:
            cnt, first = struct.unpack('>II', b[o+6:o+14])
            for c in range(first, first+cnt): walk(c, prefix + nm + '/' if i else '')
        else:
            doff = struct.unpack('>I', b[o+10:o+14])[0]
            sz = struct.unpack('>I', b[data+doff:data+doff+4])[0]
            raw = b[data+doff+4:data+doff+4+sz]
            if flags & 1: raw = zlib.decompress(raw[4:])
            elif flags & 4:
                import zstandard; raw = zstandard.ZstdDecompressor().decompress(raw)
            p = os.path.join(outdir, prefix + nm); os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, 'wb').write(raw); out.append(p)
    walk(0, '')
    return out
if __name__ == '__main__':
    print(len(extract(sys.argv[1], sys.argv[2])), 'files')
