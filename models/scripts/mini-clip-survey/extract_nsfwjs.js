const fs=require('fs'),path=require('path');
const base=process.argv[2], out=process.argv[3];
for (const m of ['mobilenet_v2','mobilenet_v2_mid','inception_v3']) {
  const dir=path.join(base,m); const o=path.join(out,m); fs.mkdirSync(o,{recursive:true});
  const mj=require(path.join(dir,'model.min.js'));
  const shards=fs.readdirSync(dir).filter(f=>f.startsWith('group')).sort();
  let total=0;
  for (const s of shards){ const v=require(path.join(dir,s)); const t=typeof v;
    const buf=Buffer.from(v,'base64'); total+=buf.length;
    fs.writeFileSync(path.join(o,s.replace('.min.js','.bin')),buf); }
  // rewrite manifest paths
  for (const g of mj.weightsManifest) g.paths=g.paths.map(p=>p.replace(/(\.min\.js)?$/,'').replace(/\.bin$/,'')+'.bin');
  fs.writeFileSync(path.join(o,'model.json'),JSON.stringify(mj));
  const specs=mj.weightsManifest.flatMap(g=>g.weights);
  const dts={}; for (const w of specs){const k=w.dtype+'/'+(w.quantization?w.quantization.dtype:'none'); dts[k]=(dts[k]||0)+1;}
  console.log(m, 'format=',mj.format,'generatedBy=',mj.generatedBy,'convertedBy=',mj.convertedBy,'topology=',Object.keys(mj.modelTopology||{}).join(','),
   'class=',mj.modelTopology&&mj.modelTopology.model_config&&mj.modelTopology.model_config.class_name,
   'shards=',shards.length,'binBytes=',total,'nWeights=',specs.length,'dtypes=',JSON.stringify(dts),'paths=',JSON.stringify(mj.weightsManifest.map(g=>g.paths)));
}
