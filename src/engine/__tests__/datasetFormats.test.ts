import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CAPTION_FORMATS,
  DATASET_FORMATS,
  DATASET_FORMAT_IDS,
  type DatasetFormatId,
  IMPORT_FORMATS,
  SELECTION_FORMATS,
  datasetFormatOfName,
  datasetFormatOfText,
  readAnyDatasetFile,
  readDatasetFile,
} from '../datasets/datasetFormats';
import { EngineError } from '../errors';

/** A small file of each format, as its own tools write it. */
const SAMPLES: Record<DatasetFormatId, { name: string; text: string }> = {
  mmdialog: {
    name: 'train/conversations.json',
    text: JSON.stringify([
      { conversation_id: 7, conversation: [{ turn: [{ __TEXT__: 'look at my garden' }, { __MEDIA__: 'ph-garden' }] }, { turn: [{ __TEXT__: 'lovely' }] }] },
    ]),
  },
  'media-catalogue': {
    name: 'media.json',
    text: JSON.stringify({ version: 1, items: [{ key: 'ph-garden', file: 'media/ph-garden.jpg', kind: 'photo', alt: 'A small vegetable garden' }] }),
  },
  'pool-texts': { name: 'texts.json', text: JSON.stringify({ version: 1, texts: [{ id: 't1', text: 'Hello there!' }] }) },
  dailydialog: { name: 'dialogues_text.txt', text: 'Hi , how are you ? __eou__ Fine , thanks . __eou__\n' },
  'topical-chat': {
    name: 'test_freq.json',
    text: JSON.stringify({
      t_a: {
        content: [
          { message: 'Do you like jazz?', agent: 'agent_1' },
          { message: 'I do!', agent: 'agent_2' },
        ],
      },
    }),
  },
  polyai: { name: 'test.jsonl', text: '{"context": "hi", "response": "hello", "context/0": "hey"}\n' },
  visdial: {
    name: 'visdial_1.0_val.json',
    text: JSON.stringify({
      version: '1.0',
      split: 'val2018',
      data: {
        questions: ['is it sunny'],
        answers: Array.from({ length: 100 }, (_, i) => `answer ${i}`),
        dialogs: [
          {
            image_id: 1,
            caption: 'a park',
            dialog: [{ question: 0, answer: 3, gt_index: 3, answer_options: Array.from({ length: 100 }, (_, i) => i) }],
          },
        ],
      },
    }),
  },
  avsd: {
    name: 'lbl_test_set4DSTC7-AVSD.json',
    text: JSON.stringify({
      type: 'scene_aware_dialog',
      dialogs: [{ image_id: 'ABC12', caption: 'a man opens a door', summary: null, dialog: [{ question: 'is he alone?', answer: 'yes' }] }],
    }),
  },
  'coco-captions': {
    name: 'captions.json',
    text: JSON.stringify({ images: [{ id: 1, file_name: '1.jpg' }], annotations: [{ image_id: 1, caption: 'A dog on a couch.' }] }),
  },
  'caption-csv': { name: 'pairs.csv', text: 'image,caption\n1.jpg,A dog on a couch.\n1.jpg,"A dog, asleep."\n' },
  utterances: { name: 'replies.txt', text: 'Hello!\nHow are you?\nHello!\n' },
};

/** Every format whose signature the text has: a text should be told apart from every other format, not only come first. */
const formatsSeenIn = (text: string) => DATASET_FORMAT_IDS.filter((f) => DATASET_FORMATS[f].looksLike(text));

describe('dataset format registry', () => {
  it('tells each format from its text alone, and from no other format', () => {
    for (const id of DATASET_FORMAT_IDS) {
      // Utterance files are any text; they are known by their .txt name only.
      expect(formatsSeenIn(SAMPLES[id].text), id).toEqual(id === 'utterances' ? [] : [id]);
    }
  });

  it("knows each format by its file's name among the formats of the reader asking", () => {
    for (const among of [IMPORT_FORMATS, SELECTION_FORMATS, CAPTION_FORMATS])
      for (const id of among) expect(datasetFormatOfName(SAMPLES[id].name, among), id).toBe(id);
    // The page's import plans a folder by names: a DailyDialog file there is utterances, one a line.
    expect(datasetFormatOfName('some/folder/dialogues_text.txt', IMPORT_FORMATS)).toBe('utterances');
    expect(datasetFormatOfName('notes.md', IMPORT_FORMATS)).toBeNull();
  });

  it('reads each sample through the format it was detected as', () => {
    expect(readDatasetFile('mmdialog', SAMPLES.mmdialog.text, 'conversations.json')).toEqual([
      {
        id: '7',
        turns: [
          {
            elements: [
              { kind: 'text', text: 'look at my garden' },
              { kind: 'media', key: 'ph-garden' },
            ],
          },
          { elements: [{ kind: 'text', text: 'lovely' }] },
        ],
      },
    ]);
    expect(readDatasetFile('media-catalogue', SAMPLES['media-catalogue'].text, 'media.json').map((m) => [m.key, m.alt])).toEqual([
      ['ph-garden', 'A small vegetable garden'],
    ]);
    expect(readDatasetFile('pool-texts', SAMPLES['pool-texts'].text, 'texts.json')).toEqual([{ id: 't1', text: 'Hello there!' }]);
    expect(readDatasetFile('dailydialog', SAMPLES.dailydialog.text, 'dialogues_text.txt').conversations).toEqual([
      { id: 'line-1', turns: ['Hi , how are you ?', 'Fine , thanks .'] },
    ]);
    expect(readDatasetFile('topical-chat', SAMPLES['topical-chat'].text, 'test_freq.json').conversations).toEqual([
      { id: 't_a', turns: ['Do you like jazz?', 'I do!'] },
    ]);
    expect(readDatasetFile('polyai', SAMPLES.polyai.text, 'test.jsonl')).toEqual([{ context: 'hi', response: 'hello', extraContexts: ['hey'] }]);
    const visdial = readDatasetFile('visdial', SAMPLES.visdial.text, 'visdial_1.0_val.json');
    expect(visdial.dialogs[0]!.rounds[0]).toMatchObject({ question: 'is it sunny', answer: 'answer 3', gtIndex: 3 });
    expect(readDatasetFile('avsd', SAMPLES.avsd.text, 'avsd.json')).toEqual([
      { id: 'ABC12', caption: 'a man opens a door', summary: null, rounds: [{ question: 'is he alone?', answer: 'yes' }] },
    ]);
    expect(readDatasetFile('coco-captions', SAMPLES['coco-captions'].text, 'captions.json').images).toEqual([
      { file: '1.jpg', captions: ['A dog on a couch.'] },
    ]);
    expect(readDatasetFile('caption-csv', SAMPLES['caption-csv'].text, 'pairs.csv').images).toEqual([
      { file: '1.jpg', captions: ['A dog on a couch.', 'A dog, asleep.'] },
    ]);
    expect(readDatasetFile('utterances', SAMPLES.utterances.text, 'replies.txt').map((t) => t.text)).toEqual(['Hello!', 'How are you?']);
  });

  it("checks an MMDialog record's media keys against the dataset's images", () => {
    const hasMedia = (key: string) => key === 'ph-other';
    expect(() => readDatasetFile('mmdialog', SAMPLES.mmdialog.text, 'train/conversations.json', { hasMedia })).toThrow(/ph-garden/);
  });

  it('reads a file as whatever it is among the formats asked for, its text first and then its name', () => {
    expect(readAnyDatasetFile(SAMPLES['caption-csv'].text.replace('image,caption\n', ''), 'pairs.csv', CAPTION_FORMATS, 'bench').format).toBe('caption-csv');
    // A COCO file under any name is still COCO.
    expect(readAnyDatasetFile(SAMPLES['coco-captions'].text, 'my-set.json', CAPTION_FORMATS, 'bench').format).toBe('coco-captions');
  });

  it('refuses a file of no format it takes, naming the file and every format it takes', () => {
    let error: unknown = null;
    try {
      readAnyDatasetFile('# my notes\n', 'notes.md', SELECTION_FORMATS, 'bench -- select');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).code).toBe('dataset-invalid');
    expect((error as EngineError).message).toBe(
      "notes.md is not a file bench -- select can read: it takes DailyDialog's dialogues_text.txt, a Topical-Chat file such as test_freq.json, PolyAI JSON lines, VisDial v1.0's visdial_1.0_val.json, DSTC7 AVSD's lbl_test_set4DSTC7-AVSD.json.",
    );
    // A caption file is not something bench -- select ranks, even though the registry knows it.
    expect(() => readAnyDatasetFile(SAMPLES['coco-captions'].text, 'captions.json', SELECTION_FORMATS, 'bench -- select')).toThrow(
      'captions.json is not a file bench -- select can read',
    );
  });

  it("tells apart the project's own files and the shared data", () => {
    const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
    const all = DATASET_FORMAT_IDS;
    expect(datasetFormatOfText(read('../../../public/dialogues/test/conversations.json'), all)).toBe('mmdialog');
    expect(datasetFormatOfText(read('../../../public/pool/media.json'), all)).toBe('media-catalogue');
    expect(datasetFormatOfText(read('../../../public/pool/texts.json'), all)).toBe('pool-texts');
    const shared = (path: string) => read(`../../../../shared/data/${path}`);
    expect(datasetFormatOfText(shared('dailydialog/dialogues_text.txt'), all)).toBe('dailydialog');
    expect(datasetFormatOfText(shared('topical-chat/test_freq.json'), all)).toBe('topical-chat');
    expect(datasetFormatOfText(shared('visdial/visdial_1.0_val.json'), all)).toBe('visdial');
    expect(datasetFormatOfText(shared('avsd/lbl_test_set4DSTC7-AVSD.json'), all)).toBe('avsd');
    expect(datasetFormatOfText(shared('coco-mini/captions.json'), all)).toBe('coco-captions');
  });
});
