/**
 * npm run avsd:generate -- [--split test] [--clips 20] [--first 0] [--out DIR] [--webm]
 *
 * Writes generated AVSD-style clips as AVSD writes its data: <out>/dialogs.json (per clip its event
 * list, the six question-answer rounds and, per round, the 100 candidates), <out>/<clip>.wav (its
 * sound, 16 kHz; none for a clip without a sound track) and <out>/<clip>.png (its middle frame); with --webm, also <out>/<clip>.webm (VP8 and
 * Opus at 10 fps, 320x240), encoded by ffmpeg, so the clip can be shared in the page.
 * Deterministic: the same options write the same bytes (the WebM files aside, which are ffmpeg's).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import { AVSD_SPLITS, type AvsdSplit, generateAvsdSplit, trainAnswerBank } from '../../engine/video/avsdDataset';
import { AUDIO_SAMPLE_RATE, renderClipFrame } from '../../engine/video/videoClips';
import { clipAudio, loadSpeech } from './avsdMedia';
import { UsageError, choiceOption, integerOption, parseCommandLine, runCommand } from '../tools/cliArgs';

export const AVSD_GENERATE_USAGE = 'npm run avsd:generate -- [--split test] [--clips 20] [--first 0] [--out DIR] [--webm]';
const FPS = 10;

/** 16-bit PCM mono WAV. */
export function wavBytes(samples: Float32Array, rate = AUDIO_SAMPLE_RATE): Buffer {
  const out = Buffer.alloc(44 + samples.length * 2);
  out.write('RIFF', 0);
  out.writeUInt32LE(36 + samples.length * 2, 4);
  out.write('WAVEfmt ', 8);
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(rate, 24);
  out.writeUInt32LE(rate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36);
  out.writeUInt32LE(samples.length * 2, 40);
  samples.forEach((v, i) => out.writeInt16LE(Math.round(Math.max(-1, Math.min(1, v)) * 32767), 44 + i * 2));
  return out;
}

export function writeAvsdClips(out: string, split: AvsdSplit, clips: number, first: number, webm: boolean): string[] {
  mkdirSync(out, { recursive: true });
  const records = generateAvsdSplit(split, trainAnswerBank(), first + clips).slice(first);
  const speech = loadSpeech();
  writeFileSync(
    join(out, 'dialogs.json'),
    `${JSON.stringify(
      records.map((r) => ({ clip: r.clip, dialog: r.dialog.rounds.map((round, n) => ({ ...round, candidates: r.candidates[n] })) })),
      null,
      1,
    )}\n`,
  );
  const written = ['dialogs.json'];
  for (const { clip } of records) {
    const sound = clipAudio(clip, speech);
    const audio = sound ? wavBytes(sound) : null;
    if (audio) writeFileSync(join(out, `${clip.id}.wav`), audio);
    const middle = renderClipFrame(clip, clip.seconds / 2, 320, 240);
    const png = new PNG({ width: middle.width, height: middle.height });
    png.data = Buffer.from(middle.data);
    writeFileSync(join(out, `${clip.id}.png`), PNG.sync.write(png));
    written.push(...(audio ? [`${clip.id}.wav`] : []), `${clip.id}.png`);
    if (!webm) continue;
    const work = mkdtempSync(join(tmpdir(), 'avsd-'));
    try {
      const frames = Math.round(clip.seconds * FPS);
      const raw = Buffer.concat(Array.from({ length: frames }, (_, f) => Buffer.from(renderClipFrame(clip, (f + 0.5) / FPS, 320, 240).data)));
      writeFileSync(join(work, 'frames.rgba'), raw);
      const input = ['-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', '320x240', '-r', String(FPS), '-i', join(work, 'frames.rgba')];
      if (audio) writeFileSync(join(work, 'audio.wav'), audio);
      const sound = audio ? ['-i', join(work, 'audio.wav'), '-c:a', 'libopus', '-b:a', '48k', '-shortest'] : [];
      execFileSync('ffmpeg', [
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        ...input,
        ...sound,
        '-pix_fmt',
        'yuv420p',
        '-c:v',
        'libvpx',
        '-b:v',
        '300k',
        join(out, `${clip.id}.webm`),
      ]);
      written.push(`${clip.id}.webm`);
    } catch (error) {
      throw new Error(
        `ffmpeg could not encode ${clip.id}.webm (${error instanceof Error ? error.message : String(error)}). Install it (apt-get install ffmpeg) or leave out --webm.`,
      );
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return written;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runCommand('avsd:generate', () => {
    const values = parseCommandLine(
      process.argv.slice(2),
      {
        split: { type: 'string', default: 'test' },
        clips: { type: 'string', default: '20' },
        first: { type: 'string', default: '0' },
        out: { type: 'string', default: join('models', '.cache', 'avsd', 'clips') },
        webm: { type: 'boolean', default: false },
      },
      AVSD_GENERATE_USAGE,
    );
    const split = choiceOption(values.split, 'split', Object.keys(AVSD_SPLITS) as AvsdSplit[], AVSD_GENERATE_USAGE);
    const clips = integerOption(values.clips, 'clips', AVSD_GENERATE_USAGE);
    const first = integerOption(values.first, 'first', AVSD_GENERATE_USAGE, 0);
    if (first + clips > AVSD_SPLITS[split].clips)
      throw new UsageError(`The ${split} split has ${AVSD_SPLITS[split].clips} clips; --first ${first} --clips ${clips} goes past them.`, AVSD_GENERATE_USAGE);
    const written = writeAvsdClips(values.out, split, clips, first, values.webm);
    console.log(`wrote ${written.length} files (${clips} ${split} clips) to ${values.out}`);
  });
}
