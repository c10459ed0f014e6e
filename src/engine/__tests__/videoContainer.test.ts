import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pictureTooLarge, probeWebm } from '../video/videoContainer';

const clip = (name: string) => new Uint8Array(readFileSync(join('e2e', 'assets', 'video', name)));
const probe = (bytes: Uint8Array) => probeWebm(bytes, bytes.length);

describe("reading a WebM file's own structure", () => {
  it('finds the video track, its codec and size, and whether there is sound', () => {
    expect(probe(clip('speech-test-1-15.webm'))).toEqual({ container: 'webm', damage: null, video: { codec: 'V_VP8', width: 320, height: 240 }, audio: true });
    expect(probe(clip('silent.webm'))).toEqual({ container: 'webm', damage: null, video: { codec: 'V_VP8', width: 320, height: 240 }, audio: false });
    expect(probe(clip('sound-only.webm'))).toEqual({ container: 'webm', damage: null, video: null, audio: true });
  });

  it('reads the size a container claims, 65535 x 65535 included, and calls it too large to decode', () => {
    const bytes = clip('coffee-pan.webm');
    const w = Buffer.from(bytes).indexOf(Buffer.from([0xb0, 0x82, 0x01, 0x90]));
    const h = Buffer.from(bytes).indexOf(Buffer.from([0xba, 0x82, 0x01, 0x2c]));
    bytes.set([0xff, 0xff], w + 2);
    bytes.set([0xff, 0xff], h + 2);
    const { video, damage } = probe(bytes);
    expect(damage).toBeNull();
    expect(video).toEqual({ codec: 'V_VP8', width: 65535, height: 65535 });
    expect(pictureTooLarge(65535, 65535)).toBe(true);
    expect(pictureTooLarge(3840, 2160)).toBe(false);
    expect(pictureTooLarge(7680, 4320)).toBe(false);
  });

  it('says how a damaged file is broken: cut short, or unreadable where its content or frames should be', () => {
    const speech = clip('speech-test-1-15.webm');
    expect(probeWebm(speech.slice(0, 2000), 2000).damage).toBe('it is cut short: it should run to byte 28048, but the file has 2000 bytes');
    const scrambled = speech.slice();
    for (let i = 600; i < scrambled.length; i++) scrambled[i] = (i * 37) % 251;
    expect(probe(scrambled).damage).toBe('there is unreadable data at byte 666');
    const early = speech.slice();
    for (let i = 100; i < 200; i++) early[i] = (i * 37) % 251;
    expect(probe(early).damage).toBe('there is unreadable data at byte 111');
    expect(probe(new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 1, 2])).damage).toBe('its WebM header is broken');
  });
});
