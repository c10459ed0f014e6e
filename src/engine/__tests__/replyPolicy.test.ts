import { describe, expect, it } from 'vitest';
import {
  ECHO_BAR,
  asksForPhotos,
  echoSimilarity,
  echoes,
  namesObject,
  pictureRequest,
  speaksOfTheirPhoto,
  utteranceKind,
  contradicts,
  namesTopic,
  requestTopics,
} from '../response/replyPolicy';
import { readCorpora } from '../../node/data/conversationFiles';

describe("the reply rules' reading of texts", () => {
  it('tells a request for photos from a text that only mentions one', () => {
    for (const ask of [
      'where are the pics??',
      'stop I need details. where are the pics??',
      'shut up. show me a pic right now',
      'send more',
      'keep them coming haha',
      'any more pics?',
      'new Max pics?',
      "pics or it didn't happen",
      'let me see!',
    ])
      expect(asksForPhotos(ask), ask).toBe(true);
    for (const not of [
      'I have a picture of my dog',
      'Schwerin Palace is even more beautiful in your pic',
      'I want to see the game',
      'what a great shot',
      'I took a photo yesterday',
      'Can you share the recipe?',
    ])
      expect(asksForPhotos(not), not).toBe(false);
  });

  it('knows a text that echoes a line said rather than answering it', () => {
    const said = ['How are you doing today?', 'I just got back from a hike in the hills', 'ok'];
    expect(echoes('hi how are you doing there today?', said)).toBe(true); // holds every word of the first line
    expect(echoes('I just got back from the hills!', said)).toBe(true); // every word of it is in the second
    expect(echoes('I am doing great, thanks for asking. How about you?', said)).toBe(false);
    expect(echoes('ok sure', said)).toBe(false); // "ok" is too short to be echoed
    expect(echoes('ok', ['ok then'])).toBe(false); // and a short answer never echoes
    expect(echoes('any more pics', ['more pics'])).toBe(false);
    // What the visitor's turns got before the guard: lines like theirs, not replies to them.
    expect(echoes("What's your city like?", ["What's your favourite city?"])).toBe(true);
    expect(echoes("Great. I just got back from a week's vacation in Thailand.", ['I just got back from a hiking trip in the Alps'])).toBe(true);
    expect(echoes('Doing well thanks. How about you?', ['How are you doing today?'])).toBe(false);
    expect(echoSimilarity("What's your city like?", "What's your favourite city?")).toBeCloseTo(8 / 14, 10);
  });

  it("takes the echo bar from the valid parts: 1 in 100 of people's replies there comes as close to the other person's earlier lines", () => {
    const closest: number[] = [];
    for (const { conversations } of readCorpora()) {
      for (const c of conversations) {
        if (c.part !== 'valid') continue;
        const t = c.tidyTurns;
        for (let r = 1; r < t.length; r++) {
          let best = 0;
          for (let j = r - 1; j >= 0; j -= 2) best = Math.max(best, echoSimilarity(t[r]!, t[j]!));
          closest.push(best);
        }
      }
    }
    closest.sort((a, b) => a - b);
    expect(closest).toHaveLength(5339);
    expect(closest[Math.floor(0.99 * (closest.length - 1))]).toBeCloseTo(ECHO_BAR, 3);
  });

  it('knows a claim about itself that contradicts one made before: the same topic negated, or another home', () => {
    expect(contradicts('I have two kids and a dog.', ['No kids for me, I travel too much.'])).toBe(true);
    expect(contradicts("I don't have a cat.", ['My cat sleeps all day.'])).toBe(true);
    expect(contradicts('I live in Paris now.', ["I'm from Boston, born and raised."])).toBe(true);
    // The same story, someone else's story, or another topic: no contradiction.
    expect(contradicts('I have two kids.', ['My kids are at school.'])).toBe(false);
    expect(contradicts('You have no pets?', ['My cat sleeps all day.'])).toBe(false);
    expect(contradicts("I don't like rain.", ['I love my dog.'])).toBe(false);
    expect(contradicts('I live in Boston.', ["I'm from Boston."])).toBe(false);
  });

  it('reads what a picture request is for, and whether a line names it', () => {
    expect([...requestTopics('pictures of cute cats')]).toEqual(['cute', 'cat']);
    expect(namesTopic('look at this cat!', requestTopics('a cat'))).toBe(true);
    expect(namesTopic('My ski instructor was great', requestTopics('a cat'))).toBe(false);
  });

  it("tells a turn's kind by its question marks", () => {
    expect(utteranceKind('How are you?')).toBe('question');
    expect(utteranceKind('Where? When?? 😀')).toBe('question');
    expect(utteranceKind("I'm fine. And you?")).toBe('both');
    expect(utteranceKind('Did you? I never have.')).toBe('both');
    expect(utteranceKind('Sure thing!')).toBe('statement');
    expect(utteranceKind('')).toBe('statement');
  });

  it('knows a text that speaks of a photo the other person sent', () => {
    for (const t of ['Schwerin Palace is even more beautiful in your pic', 'love this photo!', 'That picture is amazing'])
      expect(speaksOfTheirPhoto(t), t).toBe(true);
    for (const t of ['the photos from my trip', 'I took a photo yesterday', 'what a nice view']) expect(speaksOfTheirPhoto(t), t).toBe(false);
  });

  it('reads what a picture request asks for, and nothing from words that ask for none', () => {
    expect(pictureRequest('show me a cat')).toBe('cat');
    expect(pictureRequest('send me a photo of food')).toBe('food');
    expect(pictureRequest('Can I see a picture of your dog?')).toBe('dog');
    expect(pictureRequest('got any pics of the beach?')).toBe('beach');
    expect(pictureRequest('Show me some pizza please')).toBe('pizza');
    expect(pictureRequest('I want to see a photo of a horse')).toBe('horse');
    expect(pictureRequest('Could I see the Eiffel Tower?')).toBe('eiffel tower');
    for (const none of ['show me!', 'send me one', 'I love pictures of cats', 'What do you like to do on weekends?'])
      expect(pictureRequest(none), none).toBeNull();
  });

  it('finds an object in any of its words', () => {
    expect(namesObject('what a cute puppy!', 'dog')).toBe(true);
    expect(namesObject('I love hot dogs', 'dog')).toBe(false); // a hot dog is another class
    expect(namesObject('nice sofa', 'couch')).toBe(true);
  });
});
