import { IMPORT_FORMATS, datasetFormatOfName } from './datasetFormats';
import { isMediaKey } from './validation';

/**
 * What a folder (or zip) a person drops in holds: MMDialog split files, an optional image catalogue,
 * utterance files and images. Decided from paths alone, so nothing is read before the plan is shown.
 */
export interface DatasetFilePlan {
  /** conversations.json files with the split each belongs to (its folder's name). */
  conversations: { path: string; split: string }[];
  /** A media.json catalogue (alt-texts, attribution), when there is one. */
  mediaCatalogue: string | null;
  /** texts.json (pool format) or .txt files (one utterance per line). */
  textFiles: string[];
  /** Images by media key (the file name without its extension). */
  images: Map<string, string>;
  /** Files that are not used, with the reason, to show the person. */
  skipped: { path: string; reason: string }[];
}

const IMAGE_EXTENSIONS = new Set(['jpg', 'jpeg', 'png', 'webp', 'gif', 'bmp']);

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function planDatasetFiles(paths: readonly string[]): DatasetFilePlan {
  const plan: DatasetFilePlan = { conversations: [], mediaCatalogue: null, textFiles: [], images: new Map(), skipped: [] };
  for (const raw of [...paths].sort()) {
    const path = raw.replace(/\\/g, '/').replace(/^\.?\//, '');
    const name = baseName(path);
    const lower = name.toLowerCase();
    const dot = lower.lastIndexOf('.');
    const ext = dot >= 0 ? lower.slice(dot + 1) : '';
    if (name.startsWith('.') || path.includes('__MACOSX/')) continue; // .DS_Store, resource forks: never the person's data
    const format = datasetFormatOfName(name, IMPORT_FORMATS);
    if (format === 'mmdialog') {
      const parts = path.split('/');
      plan.conversations.push({ path, split: parts.length > 1 ? parts[parts.length - 2]! : 'all' });
    } else if (format === 'media-catalogue') {
      if (plan.mediaCatalogue) plan.skipped.push({ path, reason: `a second media.json (using ${plan.mediaCatalogue})` });
      else plan.mediaCatalogue = path;
    } else if (format === 'pool-texts' || format === 'utterances') {
      plan.textFiles.push(path);
    } else if (IMAGE_EXTENSIONS.has(ext)) {
      const key = name.slice(0, dot);
      const seen = plan.images.get(key);
      if (!isMediaKey(key)) plan.skipped.push({ path, reason: 'its name cannot be a media key (use letters, digits, "-", "_" or ".")' });
      else if (seen) plan.skipped.push({ path, reason: `another image has the same name (${seen})` });
      else plan.images.set(key, path);
    } else {
      plan.skipped.push({ path, reason: ext ? `.${ext} files are not part of a dataset` : 'not a dataset file' });
    }
  }
  return plan;
}
