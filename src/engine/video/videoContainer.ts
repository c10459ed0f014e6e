/** The container a file's first bytes name: MP4/MOV ("ftyp" at byte 4) or WebM/Matroska (the EBML header); null for anything else. */
export function videoContainer(head: Uint8Array): 'mp4' | 'webm' | null {
  if (head.length >= 8 && String.fromCharCode(...head.subarray(4, 8)) === 'ftyp') return 'mp4';
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'webm';
  return null;
}

/** What a container's own structure says about a file, read before (or after) the browser tried it. */
export interface ContainerProbe {
  container: 'mp4' | 'webm';
  /** How the structure is broken, in words ("it is cut short: …"), or null when what was read is whole. */
  damage: string | null;
  /** The first video track as the container declares it (null: none found in what was read). */
  video: { codec: string; width: number | null; height: number | null } | null;
  audio: boolean;
}

/** Matroska/WebM element ids (with their length marker, as written). */
const EBML = {
  header: 0x1a45dfa3,
  segment: 0x18538067,
  tracks: 0x1654ae6b,
  cluster: 0x1f43b675,
  trackEntry: 0xae,
  trackType: 0x83,
  codecId: 0x86,
  video: 0xe0,
  pixelWidth: 0xb0,
  pixelHeight: 0xba,
} as const;
const SEGMENT_CHILDREN = new Set([0x114d9b74, 0x1549a966, EBML.tracks, 0x1c53bb6b, 0x1043a770, 0x1254c367, 0x1941a469, EBML.cluster, 0xec, 0xbf]);
/** What a cluster may start with: its timestamp, a block, its position or previous size, a CRC, a Void. */
const CLUSTER_CHILDREN = new Set([0xe7, 0xa3, 0xa0, 0xa7, 0xab, 0xbf, 0xec, 0x5854]);

interface EbmlElement {
  id: number;
  /** Where its data starts and ends (end is null for an unknown size). */
  start: number;
  end: number | null;
}

/** One element header at pos, or null when its id or size is not a valid EBML number. */
function ebmlElement(bytes: Uint8Array, pos: number): EbmlElement | null {
  const first = bytes[pos];
  if (first === undefined || first === 0) return null;
  const idLength = Math.clz32(first) - 23;
  if (idLength > 4 || pos + idLength > bytes.length) return null;
  let id = 0;
  for (let i = 0; i < idLength; i++) id = id * 256 + bytes[pos + i]!;
  const sizeAt = pos + idLength;
  const sizeFirst = bytes[sizeAt];
  if (sizeFirst === undefined || sizeFirst === 0) return null;
  const sizeLength = Math.clz32(sizeFirst) - 23;
  if (sizeAt + sizeLength > bytes.length) return null;
  let size = sizeFirst & (0xff >> sizeLength);
  let allOnes = size === 0xff >> sizeLength;
  for (let i = 1; i < sizeLength; i++) {
    const b = bytes[sizeAt + i]!;
    size = size * 256 + b;
    allOnes &&= b === 0xff;
  }
  const start = sizeAt + sizeLength;
  return { id, start, end: allOnes ? null : start + size };
}

function ebmlUint(bytes: Uint8Array, e: EbmlElement): number {
  let v = 0;
  for (let i = e.start; i < (e.end ?? e.start); i++) v = v * 256 + bytes[i]!;
  return v;
}

/** The children of [start, end): stops at the first header that cannot be read, returning where. */
function ebmlChildren(bytes: Uint8Array, start: number, end: number): { children: EbmlElement[]; brokenAt: number | null } {
  const children: EbmlElement[] = [];
  let pos = start;
  while (pos < end && pos < bytes.length) {
    const e = ebmlElement(bytes, pos);
    if (!e || e.end === null || e.end > end) return { children, brokenAt: pos };
    children.push(e);
    pos = e.end;
  }
  return { children, brokenAt: null };
}

function webmTracks(bytes: Uint8Array, tracks: EbmlElement): Pick<ContainerProbe, 'video' | 'audio'> {
  let video: ContainerProbe['video'] = null;
  let audio = false;
  for (const entry of ebmlChildren(bytes, tracks.start, tracks.end!).children) {
    if (entry.id !== EBML.trackEntry) continue;
    const fields = ebmlChildren(bytes, entry.start, entry.end!).children;
    const type = fields.find((f) => f.id === EBML.trackType);
    const codec = fields.find((f) => f.id === EBML.codecId);
    const kind = type ? ebmlUint(bytes, type) : 0;
    if (kind === 2) audio = true;
    if (kind !== 1 || video) continue;
    const picture = fields.find((f) => f.id === EBML.video);
    const size = picture ? ebmlChildren(bytes, picture.start, picture.end!).children : [];
    const width = size.find((f) => f.id === EBML.pixelWidth);
    const height = size.find((f) => f.id === EBML.pixelHeight);
    video = {
      codec: codec ? new TextDecoder().decode(bytes.subarray(codec.start, codec.end!)).replace(/\0+$/, '') : 'unknown',
      width: width ? ebmlUint(bytes, width) : null,
      height: height ? ebmlUint(bytes, height) : null,
    };
  }
  return { video, audio };
}

/**
 * Reads a WebM/Matroska file's structure from its first bytes (`head`; the whole file when it is
 * small): the header, the segment, the track list and the start of the first cluster. `fileSize` is
 * the whole file's, so a segment longer than the file shows as cut short.
 */
export function probeWebm(head: Uint8Array, fileSize: number): ContainerProbe {
  const probe: ContainerProbe = { container: 'webm', damage: null, video: null, audio: false };
  const header = ebmlElement(head, 0);
  if (!header || header.id !== EBML.header || header.end === null || header.end > fileSize) return { ...probe, damage: 'its WebM header is broken' };
  let pos = header.end;
  let segment = ebmlElement(head, pos);
  while (segment && segment.id === 0xec && segment.end !== null) segment = ebmlElement(head, (pos = segment.end));
  if (!segment || segment.id !== EBML.segment) return { ...probe, damage: `there is unreadable data at byte ${pos}, where its content should begin` };
  const end = segment.end ?? fileSize;
  if (end > fileSize) probe.damage = `it is cut short: it should run to byte ${end}, but the file has ${fileSize} bytes`;
  pos = segment.start;
  let sawTracks = false;
  while (pos < Math.min(end, head.length)) {
    const e = ebmlElement(head, pos);
    if (!e || !SEGMENT_CHILDREN.has(e.id) || (e.end === null && e.id !== EBML.cluster))
      return { ...probe, damage: probe.damage ?? `there is unreadable data at byte ${pos}` };
    if (e.id === EBML.tracks) {
      if (e.end! > head.length) break; // more than was read: nothing to conclude
      Object.assign(probe, webmTracks(head, e));
      sawTracks = true;
    }
    if (e.id === EBML.cluster) {
      const first = ebmlElement(head, e.start);
      if (e.start < head.length && (!first || !CLUSTER_CHILDREN.has(first.id)))
        return { ...probe, damage: probe.damage ?? `its first frames are unreadable (byte ${e.start})` };
      if (!sawTracks) return { ...probe, damage: probe.damage ?? 'its frames come without the list of tracks that says how to decode them' };
      return probe;
    }
    pos = e.end!;
  }
  if (!sawTracks && pos >= Math.min(end, fileSize)) return { ...probe, damage: probe.damage ?? 'it has no list of tracks' };
  if (sawTracks && pos >= fileSize) return { ...probe, damage: probe.damage ?? 'it has no frames: it ends after its list of tracks' };
  return probe;
}

/** Matroska codec ids as the browser's canPlayType names them, and as a person would. */
const WEBM_CODECS: Record<string, { mime: string; name: string }> = {
  V_VP8: { mime: 'video/webm; codecs="vp8"', name: 'VP8' },
  V_VP9: { mime: 'video/webm; codecs="vp9"', name: 'VP9' },
  V_AV1: { mime: 'video/webm; codecs="av01.0.05M.08"', name: 'AV1' },
  'V_MPEG4/ISO/AVC': { mime: 'video/mp4; codecs="avc1.42E01E"', name: 'H.264' },
  'V_MPEGH/ISO/HEVC': { mime: 'video/mp4; codecs="hvc1.1.6.L93.B0"', name: 'HEVC/H.265' },
};

export function videoCodecName(codec: string): string {
  return WEBM_CODECS[codec]?.name ?? codec;
}

/** The type string to ask the browser's canPlayType about this codec, or null when there is none to ask. */
export function videoCodecMime(codec: string): string | null {
  return WEBM_CODECS[codec]?.mime ?? null;
}

/**
 * Whether a declared picture is larger than browsers decode: Chromium's decoders stop at 16384 pixels
 * a side (media::limits), and a frame over 8192 x 8192 pixels is beyond any camera.
 */
export function pictureTooLarge(width: number | null, height: number | null): boolean {
  if (width === null || height === null) return false;
  return width > 16384 || height > 16384 || width * height > 8192 * 8192;
}
