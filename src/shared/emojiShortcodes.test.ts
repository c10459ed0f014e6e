/// <reference types="vite/client" />
import { describe, expect, it } from 'vitest';
import { emojiOfHexcode, loadShortcodeTable, renderShortcodes, shortcodeTable } from './emojiShortcodes';

const small = shortcodeTable([
  { '1F525': 'fire', '1F44B': 'waving_hand', '2764': 'red_heart', '1F60D': 'smiling_face_with_heart_eyes' },
  { '1F525': ['flame'], '1F917': 'hugging_face' },
]);

describe('renderShortcodes', () => {
  it('shows known shortcodes as emoji and leaves the rest of the text alone', () => {
    expect(renderShortcodes('so good :fire: :waving_hand:', small)).toBe('so good 🔥 👋');
    expect(renderShortcodes(':fire::fire:', small)).toBe('🔥🔥');
    expect(renderShortcodes('no shortcodes here', small)).toBe('no shortcodes here');
  });
  it('keeps unknown shortcodes and colons as typed', () => {
    expect(renderShortcodes('meet at 10:30:45 :not_an_emoji:', small)).toBe('meet at 10:30:45 :not_an_emoji:');
    expect(renderShortcodes('ratio 3:1', small)).toBe('ratio 3:1');
    expect(renderShortcodes(':', small)).toBe(':');
  });
  it("lets an unknown name's closing colon open the next shortcode", () => {
    expect(renderShortcodes('ok:fire:', small)).toBe('ok🔥');
    expect(renderShortcodes(':nope:fire:', small)).toBe(':nope🔥');
  });
  it('reads hyphens as underscores and ignores case', () => {
    expect(renderShortcodes(':smiling_face_with_heart-eyes: :FIRE:', small)).toBe('😍 🔥');
  });
  it('takes a name from a later preset only when earlier ones lack it', () => {
    expect(renderShortcodes(':flame: :hugging_face:', small)).toBe('🔥 🤗');
  });
  it('gives text-style symbols their emoji presentation', () => {
    expect(emojiOfHexcode('2764')).toBe('❤\uFE0F');
    expect(emojiOfHexcode('1F525')).toBe('🔥');
    expect(emojiOfHexcode('1F469-200D-1F4BB')).toBe('👩‍💻');
  });
});

describe('the emojibase table', () => {
  it('covers every shortcode in the demo pool and the reference dialogues', async () => {
    const table = await loadShortcodeTable();
    // Read as raw text through Vite, since this side of the code has no Node types.
    const files = import.meta.glob<string>(['/public/pool/texts.json', '/public/dialogues/*/conversations.json'], {
      query: '?raw',
      import: 'default',
      eager: true,
    });
    const texts: string[] = (JSON.parse(files['/public/pool/texts.json']!) as { texts: { text: string }[] }).texts.map((t) => t.text);
    const splits = Object.keys(files).filter((f) => f.startsWith('/public/dialogues/'));
    expect(splits).toHaveLength(3);
    for (const split of splits) {
      const dialogues = JSON.parse(files[split]!) as { conversation: { turn: { __TEXT__?: string }[] }[] }[];
      for (const d of dialogues) for (const t of d.conversation) for (const e of t.turn) if (e.__TEXT__) texts.push(e.__TEXT__);
    }
    const withShortcodes = texts.filter((t) => /:[a-z0-9_+-]+:/i.test(t));
    expect(withShortcodes.length).toBeGreaterThan(200);
    const left = withShortcodes.filter((t) => /:[a-z_-]+:/i.test(renderShortcodes(t, table)));
    expect(left).toEqual([]);
    expect(renderShortcodes(':fire: :party_popper: :waving_hand:', table)).toBe('🔥 🎉 👋');
  });
});
