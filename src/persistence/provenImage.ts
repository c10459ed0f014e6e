import { sniffImageFormat } from '../engine/image/imageFormat';

/**
 * A stored image as the type its bytes prove ("image/gif"), never the type the file claimed: a
 * "photo" dropped as text/html would otherwise open as a page in this origin ("Open image in new
 * tab") and run its script. Not an image at all: undefined, so it is never shown or served.
 * Slicing a Blob copies nothing, so this is cheap for every image shown.
 */
export async function provenImage(blob: Blob | undefined): Promise<Blob | undefined> {
  if (!blob) return undefined;
  const format = sniffImageFormat(new Uint8Array(await blob.slice(0, 12).arrayBuffer()));
  if (!format) return undefined;
  const type = `image/${format}`;
  return blob.type === type ? blob : blob.slice(0, blob.size, type);
}
