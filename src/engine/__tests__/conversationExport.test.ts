import { describe, expect, it } from 'vitest';
import {
  type ConversationExportInput,
  type ExportImage,
  type ExportMessage,
  buildMarkdownExport,
  buildMmdialogExport,
  escapeMarkdown,
  exportImageId,
  exportImageRefs,
  formatUtc,
} from '../datasets/conversationExport';
import { planDatasetFiles } from '../datasets/datasetFiles';
import { parseConversations } from '../datasets/mmdialog';
import { parseMediaCatalogue } from '../datasets/poolCatalogue';

const T0 = Date.UTC(2025, 2, 4, 12, 1, 0); // 2025-03-04 12:01:00 UTC
const EXPORTED = Date.UTC(2025, 2, 4, 13, 5, 9);

const MESSAGES: ExportMessage[] = [
  {
    role: 'user',
    createdAt: T0,
    elements: [
      { kind: 'photo', id: 'a1b2', name: 'meadow.jpg', caption: 'A meadow full of flowers.' },
      { kind: 'text', text: 'our picnic spot' },
    ],
  },
  {
    role: 'assistant',
    createdAt: T0 + 2000,
    elements: [
      { kind: 'text', text: 'what a view' },
      { kind: 'poolImage', key: 'st-1F600', alt: 'Grinning face sticker' },
    ],
    reply: { method: 'clip-sim', intentModel: 'majority' },
  },
  // The reply to this one failed, so the person's next message follows it directly.
  { role: 'user', createdAt: T0 + 60_000, elements: [{ kind: 'text', text: 'hello?' }] },
  { role: 'user', createdAt: T0 + 90_000, elements: [{ kind: 'text', text: 'and the weather was perfect' }] },
  {
    role: 'assistant',
    createdAt: T0 + 92_000,
    elements: [{ kind: 'poolImage', key: 'st-1F600', alt: 'Grinning face sticker' }],
    reply: { method: 'depp', intentModel: 'head' },
  },
];

const IMAGES = new Map<string, ExportImage>([
  ['photo:a1b2', { format: 'jpeg' }],
  [
    'pool:st-1F600',
    {
      format: 'webp',
      credit: {
        source: '@lobehub/fluent-emoji-3d (npm)',
        author: 'Microsoft (Fluent Emoji)',
        licence: 'MIT',
        sourceUrl: 'https://github.com/microsoft/fluentui-emoji',
        kind: 'sticker',
      },
    },
  ],
]);

const INPUT: ConversationExportInput = { messages: MESSAGES, images: IMAGES, exportedAt: EXPORTED, packName: 'test tiny CLIP', poolName: 'Demo pool' };

function textOf(files: readonly { path: string }[], path: string): string {
  const file = files.find((f) => f.path === path);
  if (!file || !('text' in file)) throw new Error(`no text file ${path}`);
  return (file as { text: string }).text;
}

describe('buildMmdialogExport', () => {
  it('writes one MMDialog record: alternating turns, texts and media keys in order, the same pool image once', () => {
    const out = buildMmdialogExport(INPUT);
    expect(out.folder).toBe('conversation-20250304-130509-mmdialog');
    expect(out.records).toHaveLength(1);
    expect(out.records[0]).toEqual({
      conversation_id: T0,
      conversation: [
        { turn: [{ __MEDIA__: 'photo-1' }, { __TEXT__: 'our picnic spot' }] },
        { turn: [{ __TEXT__: 'what a view' }, { __MEDIA__: 'st-1F600' }] },
        { turn: [{ __TEXT__: 'hello?' }, { __TEXT__: 'and the weather was perfect' }] },
        { turn: [{ __MEDIA__: 'st-1F600' }] },
      ],
    });
    expect(out.files.map((f) => f.path)).toEqual([
      'conversation-20250304-130509-mmdialog/conversations.json',
      'conversation-20250304-130509-mmdialog/media.json',
      'conversation-20250304-130509-mmdialog/images/photo-1.jpg',
      'conversation-20250304-130509-mmdialog/images/st-1F600.webp',
    ]);
    expect(out.files.filter((f) => 'image' in f).map((f) => ('image' in f ? f.image : null))).toEqual([
      { kind: 'photo', id: 'a1b2' },
      { kind: 'poolImage', key: 'st-1F600' },
    ]);
    expect(out.missing).toEqual([]);
  });

  it('is accepted by the dataset loader: the plan finds every file, the reader and the catalogue accept them', () => {
    const out = buildMmdialogExport(INPUT);
    // What copyDataset does before storing anything, on the paths of the unpacked zip.
    const plan = planDatasetFiles(out.files.map((f) => f.path.slice(out.folder.length + 1)));
    expect(plan.skipped).toEqual([]);
    expect(plan.conversations).toEqual([{ path: 'conversations.json', split: 'all' }]);
    expect([...plan.images]).toEqual([
      ['photo-1', 'images/photo-1.jpg'],
      ['st-1F600', 'images/st-1F600.webp'],
    ]);
    const records = parseConversations(textOf(out.files, `${out.folder}/conversations.json`), { hasMedia: (key) => plan.images.has(key) });
    expect(records).toHaveLength(1);
    expect(records[0]!.id).toBe(String(T0));
    expect(records[0]!.turns.map((t) => t.elements.length)).toEqual([2, 2, 2, 1]);
    const catalogue = parseMediaCatalogue(JSON.parse(textOf(out.files, `${out.folder}/media.json`)) as unknown);
    expect(catalogue.map((i) => [i.key, i.file, i.kind, i.alt, i.licence, i.author ?? null])).toEqual([
      ['photo-1', 'images/photo-1.jpg', 'photo', 'A meadow full of flowers.', 'unknown', null],
      ['st-1F600', 'images/st-1F600.webp', 'sticker', 'Grinning face sticker', 'MIT', 'Microsoft (Fluent Emoji)'],
    ]);
  });

  it('keeps media keys unique regardless of letter case, and gives pool keys that cannot be file names a safe one', () => {
    const messages: ExportMessage[] = [
      {
        role: 'user',
        createdAt: T0,
        elements: [
          { kind: 'photo', id: 'x', name: 'a.png' },
          { kind: 'photo', id: 'y', name: 'b.png' },
        ],
      },
      {
        role: 'assistant',
        createdAt: T0 + 1,
        elements: [
          { kind: 'poolImage', key: 'PHOTO-1', alt: 'a pool photo' },
          { kind: 'poolImage', key: '../etc', alt: 'odd key' },
        ],
      },
    ];
    const images = new Map<string, ExportImage>([
      ['photo:x', { format: 'png' }],
      ['photo:y', { format: 'gif' }],
      ['pool:PHOTO-1', { format: 'jpeg' }],
      ['pool:../etc', { format: 'bmp' }],
    ]);
    const out = buildMmdialogExport({ messages, images, exportedAt: EXPORTED });
    expect(out.records[0]!.conversation.map((t) => t.turn)).toEqual([
      [{ __MEDIA__: 'photo-1' }, { __MEDIA__: 'photo-2' }],
      [{ __MEDIA__: 'PHOTO-1-2' }, { __MEDIA__: 'image' }],
    ]);
    expect(out.files.slice(2).map((f) => f.path.slice(out.folder.length + 1))).toEqual([
      'images/photo-1.png',
      'images/photo-2.gif',
      'images/PHOTO-1-2.jpg',
      'images/image.bmp',
    ]);
  });

  it('leaves out images it has no bytes for, says so, and keeps the speakers alternating', () => {
    const messages: ExportMessage[] = [
      { role: 'user', createdAt: T0, elements: [{ kind: 'text', text: 'look' }] },
      { role: 'assistant', createdAt: T0 + 1, elements: [{ kind: 'poolImage', key: 'gone', alt: 'A deleted dataset image' }] },
      {
        role: 'user',
        createdAt: T0 + 2,
        elements: [
          { kind: 'photo', id: 'lost', name: 'lost.jpg' },
          { kind: 'text', text: 'this one' },
        ],
      },
    ];
    const out = buildMmdialogExport({ messages, images: new Map(), exportedAt: EXPORTED });
    expect(out.records[0]!.conversation).toEqual([{ turn: [{ __TEXT__: 'look' }, { __TEXT__: 'this one' }] }]);
    expect(out.missing).toEqual([
      'The pool image "A deleted dataset image" could not be read, so it is left out.',
      'Your photo "lost.jpg" is not stored any more, so it is left out.',
    ]);
    // Text only: no media.json, whose empty list said nothing.
    expect(out.files.map((f) => f.path.slice(out.folder.length + 1))).toEqual(['conversations.json']);
  });

  it('cuts a text longer than the 4000-character element limit into elements at spaces', () => {
    const long = `${'word '.repeat(1000)}end`.trim(); // 5003 characters
    const out = buildMmdialogExport({
      messages: [{ role: 'user', createdAt: T0, elements: [{ kind: 'text', text: long }] }],
      images: new Map(),
      exportedAt: EXPORTED,
    });
    const pieces = out.records[0]!.conversation[0]!.turn.map((e) => ('__TEXT__' in e ? e.__TEXT__ : ''));
    expect(pieces.map((p) => p.length)).toEqual([3999, 1003]);
    expect(pieces.join(' ')).toBe(long);
  });

  it("writes a chat longer than the loader's 200 turns as parts the loader reads back, each starting with the person", () => {
    const many: ExportMessage[] = Array.from({ length: 441 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      createdAt: T0 + i,
      elements: [{ kind: 'text', text: `turn ${i}` }],
    }));
    const out = buildMmdialogExport({ messages: many, images: new Map(), exportedAt: EXPORTED });
    expect(out.records.map((r) => [r.conversation_id, r.conversation.length])).toEqual([
      [T0, 200],
      [`${T0}-part-2`, 200],
      [`${T0}-part-3`, 41],
    ]);
    expect(out.records[1]!.conversation[0]).toEqual({ turn: [{ __TEXT__: 'turn 200' }] });
    const read = parseConversations(out.files[0]!.path.endsWith('conversations.json') ? (out.files[0] as { text: string }).text : '', {
      file: 'conversations.json',
    });
    expect(read.map((r) => r.turns.length)).toEqual([200, 200, 41]);
  });

  it('refuses, with the reason and the way out, what is empty', () => {
    expect(() => buildMmdialogExport({ messages: [], images: new Map(), exportedAt: EXPORTED })).toThrow(
      'The conversation is empty, so there is nothing to export. Send a message first.',
    );
    const onlyLost: ExportMessage[] = [{ role: 'user', createdAt: T0, elements: [{ kind: 'photo', id: 'lost', name: 'lost.jpg' }] }];
    expect(() => buildMmdialogExport({ messages: onlyLost, images: new Map(), exportedAt: EXPORTED })).toThrow('its only images are no longer stored');
  });
});

describe('exportImageRefs', () => {
  it('lists each image once, in order of first appearance, with the id the images map uses', () => {
    const refs = exportImageRefs(MESSAGES);
    expect(refs).toEqual([
      { kind: 'photo', id: 'a1b2' },
      { kind: 'poolImage', key: 'st-1F600' },
    ]);
    expect(refs.map(exportImageId)).toEqual(['photo:a1b2', 'pool:st-1F600']);
  });
});

describe('buildMarkdownExport', () => {
  it('writes a transcript with speakers, times, reply methods, images as relative links with alt text, captions and credits', () => {
    const out = buildMarkdownExport(INPUT);
    expect(out.folder).toBe('conversation-20250304-130509-markdown');
    expect(out.files.map((f) => f.path.slice(out.folder.length + 1))).toEqual(['conversation.md', 'images/photo-1.jpg', 'images/st-1F600.webp']);
    expect(textOf(out.files, `${out.folder}/conversation.md`)).toBe(
      [
        '# Conversation',
        '',
        'Exported from MMDialog in the browser on 2025-03-04 13:05 UTC · 3 turns by you · 2 replies · model pack test tiny CLIP · pool Demo pool',
        '',
        '---',
        '',
        '**You** · 2025-03-04 12:01 UTC',
        '',
        '![Photo: A meadow full of flowers.](images/photo-1.jpg)',
        '',
        '*A meadow full of flowers.* (caption found by the system for “meadow.jpg”)',
        '',
        'our picnic spot',
        '',
        '---',
        '',
        '**System** · 2025-03-04 12:01 UTC · reply by CLIP similarity, intent majority',
        '',
        'what a view',
        '',
        '![Grinning face sticker](images/st-1F600.webp)',
        '',
        '*Grinning face sticker* · Image: Microsoft (Fluent Emoji), MIT ([@lobehub/fluent-emoji-3d (npm)](https://github.com/microsoft/fluentui-emoji))',
        '',
        '---',
        '',
        '**You** · 2025-03-04 12:02 UTC',
        '',
        'hello?',
        '',
        '---',
        '',
        '**You** · 2025-03-04 12:02 UTC',
        '',
        'and the weather was perfect',
        '',
        '---',
        '',
        '**System** · 2025-03-04 12:02 UTC · reply by trained heads (DE++), intent trained',
        '',
        '![Grinning face sticker](images/st-1F600.webp)',
        '',
        '*Grinning face sticker* · Image: Microsoft (Fluent Emoji), MIT ([@lobehub/fluent-emoji-3d (npm)](https://github.com/microsoft/fluentui-emoji))',
        '',
      ].join('\n'),
    );
  });

  it('names images it could not include instead of linking to a missing file', () => {
    const messages: ExportMessage[] = [{ role: 'user', createdAt: T0, elements: [{ kind: 'photo', id: 'lost', name: 'lost.jpg' }] }];
    const out = buildMarkdownExport({ messages, images: new Map(), exportedAt: EXPORTED, speakers: { user: 'Ana', assistant: 'Bot' } });
    const md = textOf(out.files, `${out.folder}/conversation.md`);
    expect(md).toContain('**Ana** · 2025-03-04 12:01 UTC\n\n*(photo "lost.jpg" no longer stored)*');
    expect(md).toContain('1 turn by Ana · 0 replies');
    expect(md).not.toContain('](images/');
    expect(out.missing).toEqual(['Your photo "lost.jpg" is not stored any more, so it is left out.']);
  });
});

describe('escapeMarkdown', () => {
  it('shows markup characters literally and keeps line and paragraph breaks', () => {
    expect(escapeMarkdown('# not a heading\n- not a list\n1. not numbered\nsee [this](x) *now* <b>&amp;</b>')).toBe(
      '\\# not a heading\\\n\\- not a list\\\n1\\. not numbered\\\nsee \\[this\\](x) \\*now\\* \\<b\\>\\&amp;\\</b\\>',
    );
    expect(escapeMarkdown('first\r\n\r\n\r\nsecond')).toBe('first\n\nsecond');
    expect(escapeMarkdown('C:\\temp_dir | `code`')).toBe('C:\\\\temp\\_dir \\| \\`code\\`');
  });
});

describe('formatUtc', () => {
  it('writes the same text whatever the local time zone', () => {
    expect(formatUtc(Date.UTC(2024, 11, 31, 23, 59, 59))).toBe('2024-12-31 23:59 UTC');
  });
});
