/** The container a file's first bytes name: MP4/MOV ("ftyp" at byte 4) or WebM/Matroska (the EBML header); null for anything else. */
export function videoContainer(head: Uint8Array): 'mp4' | 'webm' | null {
  if (head.length >= 8 && String.fromCharCode(...head.subarray(4, 8)) === 'ftyp') return 'mp4';
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'webm';
  return null;
}
