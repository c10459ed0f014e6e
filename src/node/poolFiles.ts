import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeUtf8Strict, parseJsonDocument } from '../engine/datasets/mmdialog';
import { type PoolMediaItem, type PoolText, parseMediaCatalogue, parseTextCatalogue } from '../engine/datasets/poolCatalogue';

/** The demo pool's catalogues from a folder (public/pool): media.json and texts.json, validated strictly. */
export function loadPoolCatalogue(dir: string): { texts: PoolText[]; media: PoolMediaItem[] } {
  const read = (name: string) => parseJsonDocument(decodeUtf8Strict(new Uint8Array(readFileSync(join(dir, name))), name), name);
  return {
    media: parseMediaCatalogue(read('media.json'), { file: 'media.json', strict: true }),
    texts: parseTextCatalogue(read('texts.json'), { file: 'texts.json', strict: true }),
  };
}
