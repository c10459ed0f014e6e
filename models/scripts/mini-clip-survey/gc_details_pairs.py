import re,glob,os,json,sys
sys.path.insert(0,'.'); from imgsize import size
R='gc/gcompris/src/activities'
out=[]
for act in ['details','paintings']:
    for f in sorted(glob.glob(f'{R}/{act}/resource/board/*.qml')):
        t=open(f).read()
        ins=re.search(r'instruction:\s*qsTr\("((?:[^"\\]|\\.)*)"',t)
        bg=re.search(r'"pixmapfile"\s*:\s*"([^"]*_background\.webp)"',t)
        pieces=re.findall(r'"pixmapfile"\s*:\s*"(image/[^"]*\.webp)"',t)
        img=f'{R}/{act}/resource/{bg.group(1)}' if bg else None
        out.append(dict(activity=act,board=os.path.basename(f),text=ins.group(1) if ins else None,image=img,size=size(img)[1:3] if img else None,n_pieces=len(pieces)))
json.dump(out,open('gc_details_pairs.json','w'),indent=1)
for a in ['details','paintings']:
    o=[x for x in out if x['activity']==a]; print(a,len(o),'with full image',sum(1 for x in o if x['image']))
    for x in o[:3]: print(' ',x)
