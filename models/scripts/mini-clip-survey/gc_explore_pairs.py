"""Extract (photo, title, text) from GCompris explore_* board QML files."""
import re, os, glob, json, sys
ROOT = 'gc/gcompris/src/activities'
def qs(s):  # field: qsTr("...") or "..."
    return s
obj_re = re.compile(r'\{[^{}]*"image2"[^{}]*\}', re.S)
def field(o, k):
    m = re.search(r'"%s"\s*:\s*(?:qsTr\()?"((?:[^"\\]|\\.)*)"' % k, o)
    return m.group(1).replace('\\"', '"') if m else None
pairs = []
for act in ['explore_monuments', 'explore_world_animals', 'explore_farm_animals', 'explore_world_music']:
    for f in sorted(glob.glob(f'{ROOT}/{act}/resource/board/*.qml')):
        for o in obj_re.findall(open(f).read()):
            img = field(o, 'image2').replace('qrc:/', 'gc/')
            pairs.append(dict(activity=act, image=img, exists=os.path.exists(img), title=field(o, 'title'), text=field(o, 'text'), text2=field(o, 'text2'), board=os.path.basename(f)))
json.dump(pairs, open('gc_explore_pairs.json', 'w'), indent=1)
from collections import Counter
print(Counter((p['activity'], p['exists']) for p in pairs))
print('unique images', len({p['image'] for p in pairs}))
for a in ['explore_monuments', 'explore_world_animals', 'explore_farm_animals', 'explore_world_music']:
    ps = [p for p in pairs if p['activity'] == a]
    for p in ps[:3]: print(json.dumps({k: (v[:110] if isinstance(v, str) else v) for k, v in p.items()}))
