/**
 * Content keys for caching embeddings: the same text or file always gets the same key, so a changed
 * pool or pack invalidates exactly the rows that changed. Two independent 32-bit multiply-xorshift
 * lanes (64 bits in all) are plenty to tell a few million pool items apart; this is not a
 * cryptographic hash and never guards anything but a cache.
 */
function mix(h: number, x: number, m: number): number {
  h = Math.imul(h ^ x, m);
  return h ^ (h >>> 15);
}

function finish(a: number, b: number, length: number): string {
  a = mix(a, length, 0x85ebca6b);
  b = mix(b, length, 0xc2b2ae35);
  a = Math.imul(a ^ (a >>> 13), 0x27d4eb2f);
  b = Math.imul(b ^ (b >>> 16), 0x165667b1);
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** 16 hex digits over the UTF-16 code units of a string. */
export function hashText(text: string): string {
  let a = 0x811c9dc5,
    b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = mix(a, c, 0x9e3779b1);
    b = mix(b, c, 0x85ebca77);
  }
  return finish(a, b, text.length);
}

/** 16 hex digits over bytes, four at a time (an ONNX file of 150 MB hashes in well under a second). */
export function hashBytes(bytes: Uint8Array): string {
  let a = 0x811c9dc5,
    b = 0x01000193;
  const words = Math.floor(bytes.length / 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < words; i++) {
    const w = view.getUint32(i * 4, true);
    a = mix(a, w, 0x9e3779b1);
    b = mix(b, w, 0x85ebca77);
  }
  for (let i = words * 4; i < bytes.length; i++) {
    a = mix(a, bytes[i]!, 0x9e3779b1);
    b = mix(b, bytes[i]!, 0x85ebca77);
  }
  return finish(a, b, bytes.length);
}
