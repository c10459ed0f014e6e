import { describe, expect, it } from 'vitest';
import { ABOUT_THE_DEMO, NOT_UNDERSTOOD, aboutTheDemoEntry, aboutTheDemoLines } from '../response/aboutTheDemo';

const asked = (line: string, withPhoto = false) => aboutTheDemoEntry(line, withPhoto)?.id ?? null;

describe("the demo's lines about itself", () => {
  it('knows the questions a booth visitor asks about the demo, however they are typed', () => {
    const cases: [string, string][] = [
      ['What is this?', 'what-is-this'],
      ['so whats this thing', 'what-is-this'],
      ['What does this demo do?', 'what-is-this'],
      ['How do you work?', 'how-do-you-work'],
      ['how does this work exactly??', 'how-do-you-work'],
      ['Is my photo uploaded somewhere?', 'photo-uploaded'],
      ['do you store my pictures?', 'photo-uploaded'],
      ['where does my photo go', 'photo-uploaded'],
      ['Who made you?', 'who-made-you'],
      ['who built this demo', 'who-made-you'],
      ['What are you?', 'what-are-you'],
      ['are you a real person?', 'what-are-you'],
      ['Am I talking to a bot?', 'what-are-you'],
      ["What's your name?", 'your-name'],
      ['where do you live', 'where-do-you-live'],
      ['Do you have any pets?', 'pets'],
      ['do u have kids', 'kids'],
      ['How old are you?', 'age'],
      ["what's your favourite food?", 'eat-drink'],
      ['What can you see in photos?', 'what-can-you-see'],
      ['will you remember me?', 'do-you-remember'],
      ['¿Hablas español?', 'languages'],
      ['do you speak french', 'languages'],
      ["what's the capital of Peru?", 'facts-and-sums'],
      ["what's 17 times 23", 'facts-and-sums'],
      ['ok fine, just tell me a joke then', 'joke'],
    ];
    for (const [line, id] of cases) expect(asked(line), line).toBe(id);
  });

  it('leaves alone what only sounds like it: news about the visitor, questions about a picture, other people', () => {
    for (const line of [
      'I shared a photo of my dog yesterday',
      'my photos from the trip are on my laptop',
      'I made this pizza last week',
      'I visited the capital of Peru last year',
      'who made this cake? it looks amazing',
      'do you like dogs?',
      'my sister has two kids',
      'How old is your city?',
      'what is this talk about',
      '',
      '🍕🍕🍕',
    ])
      expect(asked(line), line).toBeNull();
    // "What is this?" with a picture is about the picture.
    expect(asked('What is this?', true)).toBeNull();
    expect(asked('Who made you?', true)).toBe('who-made-you');
  });

  it('has two lines for every question, each said once a conversation, none longer than a chat line', () => {
    for (const entry of [...ABOUT_THE_DEMO, NOT_UNDERSTOOD]) expect(entry.lines.length, entry.id).toBe(2);
    const lines = aboutTheDemoLines();
    expect(new Set(lines).size).toBe(lines.length);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(280);
  });
});
