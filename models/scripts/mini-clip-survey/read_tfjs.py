import json, numpy as np, os, sys
def load_tfjs(d):
    mj = json.load(open(os.path.join(d, 'model.json')))
    out = {}
    for g in mj['weightsManifest']:
        buf = b''.join(open(os.path.join(d, p), 'rb').read() for p in g['paths'])
        off = 0
        for w in g['weights']:
            n = int(np.prod(w['shape'])) if w['shape'] else 1
            q = w.get('quantization')
            if q:
                qd = {'uint8': np.uint8, 'uint16': np.uint16, 'float16': np.float16}[q['dtype']]
                raw = np.frombuffer(buf, qd, n, off); off += raw.nbytes
                arr = raw.astype(np.float32) if q['dtype'] == 'float16' else raw.astype(np.float32) * q['scale'] + q['min']
            else:
                raw = np.frombuffer(buf, {'float32': np.float32, 'int32': np.int32}[w['dtype']], n, off); off += raw.nbytes
                arr = raw
            out[w['name']] = arr.reshape(w['shape'])
        assert off == len(buf), (off, len(buf))
    return mj, out
if __name__ == '__main__':
    for m in sys.argv[1:]:
        mj, W = load_tfjs(m)
        n = sum(v.size for v in W.values())
        print(m, 'tensors', len(W), 'params', n)
        for k in list(W)[:2] + list(W)[-2:]: print('  ', k, W[k].shape, float(W[k].min()), float(W[k].max()))
        t = mj['modelTopology']
        if 'model_config' in t:
            L = t['model_config']['config']['layers']
            print('   layers', len(L), 'input', L[0]['config'].get('batch_input_shape'), 'last', [(l['class_name'], l['name'], l['config'].get('units'), l['config'].get('activation')) for l in L[-3:]])
        else:
            nodes = t['node']; print('   graph nodes', len(nodes), 'ops', sorted({n['op'] for n in nodes})[:30])
            print('   placeholders', [(n['name'], n.get('attr', {}).get('shape')) for n in nodes if n['op'] == 'Placeholder'])
