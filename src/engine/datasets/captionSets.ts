import { EngineError } from '../errors';

/** A captioned image set: each image file with its captions. */
export interface CaptionSet {
  images: { file: string; captions: string[] }[];
}

function bad(location: string, what: string): never {
  throw new EngineError('invalid-input', `${location}: ${what}`);
}

/** COCO captions JSON: {images: [{id, file_name}], annotations: [{image_id, caption}]}. */
export function parseCocoCaptions(json: unknown, location: string): CaptionSet {
  if (typeof json !== 'object' || json === null) bad(location, 'expected a COCO captions object with "images" and "annotations".');
  const { images, annotations } = json as { images?: unknown; annotations?: unknown };
  if (!Array.isArray(images)) bad(location, '"images" must be a list.');
  if (!Array.isArray(annotations)) bad(location, '"annotations" must be a list.');
  const byId = new Map<number, { file: string; captions: string[] }>();
  images.forEach((img: unknown, i) => {
    const rec = img as { id?: unknown; file_name?: unknown };
    if (typeof rec?.id !== 'number' || typeof rec.file_name !== 'string') bad(location, `images[${i}] needs a numeric "id" and a "file_name".`);
    byId.set(rec.id, { file: rec.file_name, captions: [] });
  });
  annotations.forEach((ann: unknown, i) => {
    const rec = ann as { image_id?: unknown; caption?: unknown };
    if (typeof rec?.image_id !== 'number' || typeof rec.caption !== 'string') bad(location, `annotations[${i}] needs a numeric "image_id" and a "caption".`);
    const image = byId.get(rec.image_id);
    if (!image) bad(location, `annotations[${i}] refers to image_id ${rec.image_id}, which is not in "images".`);
    image.captions.push(rec.caption.trim());
  });
  return { images: [...byId.values()].filter((i) => i.captions.length > 0) };
}

/** Splits one CSV line (RFC 4180 quoting). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      fields.push(field);
      field = '';
    } else field += ch;
  }
  fields.push(field);
  return fields;
}

/** Two-column CSV `image,caption` (a header line with those names is optional); images repeat for several captions. */
export function parseCaptionCsv(text: string, location: string): CaptionSet {
  const byFile = new Map<string, string[]>();
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const fields = csvFields(line);
    if (i === 0 && fields[0]?.trim().toLowerCase() === 'image') return;
    if (fields.length !== 2 || !fields[0]!.trim() || !fields[1]!.trim()) bad(location, `line ${i + 1} should be "image,caption" (two fields, both non-empty).`);
    const file = fields[0]!.trim();
    byFile.set(file, [...(byFile.get(file) ?? []), fields[1]!.trim()]);
  });
  if (byFile.size === 0) bad(location, 'no captions found.');
  return { images: [...byFile].map(([file, captions]) => ({ file, captions })) };
}
