import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selectBench, selectionFormatOf } from './benchSelect';

const file = (name: string, content: string | Buffer) => {
  const path = join(mkdtempSync(join(tmpdir(), 'select-')), name);
  writeFileSync(path, content);
  return path;
};

const FORMATS =
  "it takes DailyDialog's dialogues_text.txt (--format dailydialog), a Topical-Chat file such as test_freq.json (--format topical-chat), PolyAI JSON lines (--format polyai), VisDial v1.0's visdial_1.0_val.json (--format visdial), DSTC7 AVSD's lbl_test_set4DSTC7-AVSD.json (--format avsd).";

describe('bench -- select on a file it does not know', () => {
  it('says in one sentence which file and which formats it takes', async () => {
    const csv = file('notes.csv', 'a,b,c\n1,2,3\n');
    await expect(selectBench(['--data', csv])).rejects.toThrow(`${csv} is not a file bench -- select can read: ${FORMATS}`);
    const binary = file('photo.jpg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0xc3, 0x28]));
    await expect(selectBench(['--data', binary])).rejects.toThrow(`${binary} is not a file bench -- select can read:`);
  });

  it('names the format a file looks like when --format says another', async () => {
    const dd = file('dialogues_text.txt', 'Hi . __eou__ Hello . __eou__\n');
    await expect(selectBench(['--data', dd, '--format', 'topical-chat'])).rejects.toThrow(
      `${dd} looks like DailyDialog's dialogues_text.txt, not a Topical-Chat file such as test_freq.json: use --format dailydialog.`,
    );
    await expect(selectBench(['--data', join(tmpdir(), 'nothing-here.txt')])).rejects.toThrow('There is no');
  });
});

describe('bench -- select reads the format off the file', () => {
  it('tells every shared data file apart', () => {
    const shared = (path: string) => readFileSync(new URL(`../../../../shared/data/${path}`, import.meta.url), 'utf8');
    expect(selectionFormatOf(shared('dailydialog/dialogues_text.txt'))).toBe('dailydialog');
    expect(selectionFormatOf(shared('topical-chat/test_freq.json'))).toBe('topical-chat');
    expect(selectionFormatOf(shared('visdial/visdial_1.0_val.json'))).toBe('visdial');
    expect(selectionFormatOf(shared('avsd/lbl_test_set4DSTC7-AVSD.json'))).toBe('avsd');
    expect(selectionFormatOf('{"context": "hi", "response": "hello", "context/0": "hey"}\n')).toBe('polyai');
  });
});
