import { stemmer } from 'stemmer';
import { mentionedClasses } from '../metrics/objectMentions';

/**
 * What a reply must not do however well it ranks, and what a visitor's words ask for outright:
 * plain rules over the words of the pool's texts, each stated once here and used by the reply session.
 */

const PHOTO_NOUN = String.raw`(?:pics?|pix|photos?|pictures?|images?|selfies?|snaps?|shots?)`;
/** A text that asks the other person for photos: "where are the pics??", "send me a photo", "any more pics?", "show me!". */
const ASKS_FOR_PHOTOS = new RegExp(
  [
    String.raw`\b(?:send|show|share|post|drop|sending)\b[^.!?]{0,24}\b${PHOTO_NOUN}\b`,
    String.raw`\b(?:any|more|some|moar|new)\s+(?:\w+\s+)?${PHOTO_NOUN}\b`,
    String.raw`\bwhere(?:'?s| are| is)\s+(?:the\s+|your\s+)?${PHOTO_NOUN}\b`,
    String.raw`\b${PHOTO_NOUN}\b[^.!?]{0,12}(?:pls|please|plz|or it didn'?t happen)`,
    String.raw`\b(?:let me|lemme|wanna|dying to)\s+see\b`,
    String.raw`\bshow me\b|\bsend (?:me )?(?:some|more|one)\b|\bsend more\b|\bkeep (?:them|em|'em) coming\b`,
  ].join('|'),
  'i',
);

/** Whether a text asks the other person for photos (a reply asks at most once a conversation, and never of someone who just sent one). */
export function asksForPhotos(text: string): boolean {
  return ASKS_FOR_PHOTOS.test(text);
}

/** A text that speaks of a photo the other person sent ("love your pic", "in this photo"): said only right after one was. */
const SPEAKS_OF_THEIR_PHOTO = new RegExp(String.raw`\b(?:your|this|that|these|those|ur)\s+(?:\w+\s+)?${PHOTO_NOUN}\b|\bin (?:your|this) ${PHOTO_NOUN}\b`, 'i');

export function speaksOfTheirPhoto(text: string): boolean {
  return SPEAKS_OF_THEIR_PHOTO.test(text);
}

/** The rules a pool's texts are marked by once (textMarks.ts); a shipped file of marks names them, so a changed rule refuses it. */
export const POOL_TEXT_RULES: readonly RegExp[] = [ASKS_FOR_PHOTOS, SPEAKS_OF_THEIR_PHOTO];

/**
 * A visitor's request for a picture, and what it should show: "show me a cat" → "cat", "send me a photo
 * of food" → "food", "can I see a picture of your dog?" → "dog", "got any pics of the beach?" →
 * "beach". Null when the words ask for no picture, or for no thing in particular ("show me!").
 */
export function pictureRequest(text: string): string | null {
  const t = text.toLowerCase().replace(/[’]/g, "'");
  const request =
    /\b(?:show|send|give|share|post)\s+(?:me|us)\s+(?:an?\s+|some\s+|the\s+|your\s+|a\s+few\s+)?(?:(?:photo|picture|pic|image|snap|shot)s?\s+(?:of\s+)?)?(.+)/.exec(
      t,
    ) ??
    /\b(?:can|could|may)\s+i\s+(?:see|have|get)\s+(?:an?\s+|some\s+|the\s+)?(?:(?:photo|picture|pic|image)s?\s+of\s+)?(.+)/.exec(t) ??
    /\b(?:got|have you got|do you have)\s+(?:any|an?)\s+(?:photo|picture|pic|image)s?\s+of\s+(.+)/.exec(t) ??
    /\b(?:i want to|i'd like to|let me)\s+see\s+(?:an?\s+|some\s+|the\s+)?(?:(?:photo|picture|pic|image)s?\s+of\s+)?(.+)/.exec(t);
  if (!request) return null;
  const thing = request[1]!
    .replace(/[?!.,;:]+.*$/, '')
    .replace(/^(?:an?|some|the|your|my|one|of)\s+/g, '')
    .replace(/\s+(?:please|pls|plz|now|too|again|for me|here)$/g, '')
    .trim();
  if (thing === '' || /^(?:it|that|this|them|those|these|more|one|something|anything|me|photos?|pictures?|pics?|images?)$/.test(thing)) return null;
  return thing;
}

/** A text's words as the echo measure reads them: lower case, apostrophes dropped ("I'm" is "im"). */
function echoWords(text: string): string[] {
  return (text
    .toLowerCase()
    .replace(/[’']/g, '')
    .match(/[\p{L}\p{N}]+/gu) ?? []) as string[];
}

/** Its words and word pairs, counted. */
function wordGrams(words: readonly string[]): Map<string, number> {
  const grams = new Map<string, number>();
  const add = (gram: string) => grams.set(gram, (grams.get(gram) ?? 0) + 1);
  words.forEach((w, i) => {
    add(w);
    if (i > 0) add(`${words[i - 1]} ${w}`);
  });
  return grams;
}

/** Lines of fewer words never echo nor are echoed: short answers ("OK", "Me too", "Thank you") repeat by nature. */
const ECHO_MIN_WORDS = 3;

/**
 * How close a text is to a line said before: the F1 of their shared words and word pairs, counted
 * (ROUGE-1 and ROUGE-2 together: Lin 2004). "What's your city like?" is 0.57 of "What's your favourite
 * city?", "Doing well thanks. How about you?" 0.30 of "How are you doing today?". 0 when either has fewer
 * than ECHO_MIN_WORDS words.
 */
export function echoSimilarity(text: string, line: string): number {
  return similarityOf(echoLine(text), echoLine(line));
}

/** A text as the echo measures read it, worked out once: its words, their set, and its words and word pairs counted. */
interface EchoLine {
  words: string[];
  set: Set<string>;
  grams: Map<string, number>;
}

function echoLine(text: string): EchoLine {
  const words = echoWords(text);
  return { words, set: new Set(words), grams: wordGrams(words) };
}

function similarityOf(a: EchoLine, b: EchoLine): number {
  if (a.words.length < ECHO_MIN_WORDS || b.words.length < ECHO_MIN_WORDS) return 0;
  let shared = 0;
  for (const [gram, count] of a.grams) shared += Math.min(count, b.grams.get(gram) ?? 0);
  // Each side holds n words and n - 1 pairs.
  return (2 * shared) / (2 * a.words.length - 1 + 2 * b.words.length - 1);
}

/**
 * The bar of an echo, chosen on the valid parts of DailyDialog and Topical-Chat (splitCorpus): 1 in 100
 * of the replies people gave there comes this close to a line the other person said in the conversation
 * (the 99th percentile of each reply's echoSimilarity to the other person's earlier lines, 5,339 replies;
 * replyPolicy.test.ts recomputes it). A candidate at or above it is dropped (echoes, the echo guard), and
 * `bench -- pool-select` counts a top reply at or above it as an echo.
 */
export const ECHO_BAR = 0.375;

/** Four in five of the words of one in the other (either way): a reply held in the line, or holding it. */
function containsEcho(mine: ReadonlySet<string>, theirs: ReadonlySet<string>): boolean {
  if (mine.size < ECHO_MIN_WORDS || theirs.size < ECHO_MIN_WORDS) return false;
  let shared = 0;
  for (const w of mine) if (theirs.has(w)) shared++;
  return shared >= 0.8 * mine.size || shared >= 0.8 * theirs.size;
}

/**
 * The echo guard: whether a text echoes a line said before rather than answering it, by either of two
 * measures: its echoSimilarity to the line reaches ECHO_BAR ("Great. I just got back from a week's
 * vacation in Thailand." to "I just got back from a hiking trip in the Alps"), or four in five of the
 * words of one are in the other ("How are you doing today?" → "hi how are you doing there today?"). A
 * reply that does is never given, whoever said the line.
 */
export function echoes(text: string, said: readonly string[]): boolean {
  return echoGuard(said)(text);
}

/** The echo guard over the lines said, each line read once: what a reply asks of every candidate the ranker offers. */
export function echoGuard(said: readonly string[]): (text: string) => boolean {
  const lines = said.map(echoLine).filter((l) => l.words.length >= ECHO_MIN_WORDS);
  return (text) => {
    if (lines.length === 0) return false;
    const mine = echoLine(text);
    return lines.some((line) => similarityOf(mine, line) >= ECHO_BAR || containsEcho(mine.set, line.set));
  };
}

/** What a turn does: asks, tells, or tells and asks. */
export type UtteranceKind = 'statement' | 'question' | 'both';
export const UTTERANCE_KINDS: readonly UtteranceKind[] = ['statement', 'question', 'both'];

/**
 * A turn's kind from its question marks, the only sign every corpus keeps: a question when it ends with
 * one (trailing quotes, brackets and emoji aside) and says nothing else before, both when it also
 * holds a sentence that is not a question ("I'm fine. And you?", "Did you? I never have."), else a statement.
 */
export function utteranceKind(text: string): UtteranceKind {
  const t = text.replace(/[^\p{L}\p{N}.!?]+$/u, '');
  if (!t.includes('?')) return 'statement';
  const sentences = t
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
  return sentences.every((s) => s.endsWith('?')) ? 'question' : 'both';
}

/** Whether a text names an object (one of the 80 COCO classes, in any of its words: "puppy" for dog). */
export function namesObject(text: string, cocoClass: string): boolean {
  return (mentionedClasses(text) as Set<string>).has(cocoClass);
}

/**
 * Words that say nothing of what a claim is about: pronouns, auxiliaries, negations, the commonest verbs
 * and fillers. What is left of a sentence ("I don't have any pets" → pet) is what the claim is about.
 */
const NOT_A_TOPIC = new Set(
  (
    'i me my mine myself we us our ours you your yours he him his she her it its they them their a an the and or but so if then than that this ' +
    'these those there here to of in on at by for with from about as into over up down out off just also too very really quite all any some ' +
    'no not none never nor neither without dont doesnt didnt cant cannot wont wouldnt isnt arent wasnt werent havent hasnt hadnt shouldnt couldnt ' +
    'im ive id ill youre theyre thats whats is am are was were be been being do does did done have has had having get got go going gone ' +
    'would could should will shall can may might must like love want think know say said tell mean make made take see look lot lots one ' +
    'yes yeah yep nope oh well ok okay sure what who when where why how which much many more most time thing things way now today really'
  ).split(' '),
);
const NEGATION =
  /\b(?:no|not|never|none|nor|neither|without|don'?t|doesn'?t|didn'?t|can'?t|cannot|won'?t|isn'?t|aren'?t|wasn'?t|weren'?t|haven'?t|hasn'?t|hadn'?t|n't)\b/;
const FIRST_PERSON = /\b(?:i|i'm|im|i've|ive|i'd|i'll|me|my|mine|myself)\b/;
const HOME = /\b(?:i live in|i'm from|im from|i am from|i grew up in|my home ?town is|i was born in)\s+([a-z]+(?: [a-z]+)?)/;

/** What a sentence says of the speaker: its topic words (stemmed), whether it is negated, and where they live. */
interface SelfClaim {
  topics: Set<string>;
  negated: boolean;
  home: string | null;
}

/** The sentences of a text that speak of the speaker ("I", "my"...), each as a claim. */
function selfClaims(text: string): SelfClaim[] {
  return text
    .toLowerCase()
    .replace(/[’]/g, "'")
    .split(/(?<=[.!?;])\s+|,\s+(?:but|and)\s+/)
    .filter((sentence) => FIRST_PERSON.test(sentence))
    .map((sentence) => ({
      topics: new Set((sentence.replace(/'/g, '').match(/[a-z]+/g) ?? []).filter((w) => w.length > 2 && !NOT_A_TOPIC.has(w)).map((w) => stemmer(w))),
      negated: NEGATION.test(sentence),
      home: HOME.exec(sentence)?.[1]?.trim() ?? null,
    }));
}

/**
 * Whether a text contradicts what the speaker said of themselves before (`ownLines`: the bot's earlier
 * lines): a claim about the same topic with the opposite polarity ("I have two kids" after "No kids for
 * me" — kid, negated then not), or another home ("I live in Paris" after "I'm from Boston"). A reply
 * that does is never given: the bot does not change its story within a conversation.
 */
export function contradicts(text: string, ownLines: readonly string[]): boolean {
  return contradictionGuard(ownLines)(text);
}

/** The contradiction check over the bot's own lines, each read once. */
export function contradictionGuard(ownLines: readonly string[]): (text: string) => boolean {
  const before = ownLines.flatMap(selfClaims);
  return (text) => {
    if (before.length === 0) return false;
    const mine = selfClaims(text);
    return mine.some((claim) =>
      before.some(
        (earlier) =>
          (claim.home !== null && earlier.home !== null && claim.home !== earlier.home) ||
          (claim.negated !== earlier.negated && [...claim.topics].some((t) => earlier.topics.has(t))),
      ),
    );
  };
}

/**
 * The lines written for the demo that introduce a picture it was asked for, when no line of the pool
 * that invites a picture also names what was asked ("Show me a cat" must not come with a line about a
 * ski instructor). Shown only before a requested picture.
 */
export const PICTURE_INTRO_TOPIC = 'picture-intro';
export const PICTURE_INTRO_LINES: readonly string[] = ["Here's one!", 'Here you go:', 'How about this one?', 'Found one for you:', 'Look at this one!'];

/** The words of a request that say what it is for, stemmed ("pictures of cute cats" → cute, cat). */
export function requestTopics(thing: string): Set<string> {
  return new Set(
    (
      thing
        .toLowerCase()
        .replace(/'/g, '')
        .match(/[a-z]+/g) ?? []
    )
      .filter((w) => w.length > 2 && !NOT_A_TOPIC.has(w) && !/^(?:photos?|pictures?|pics?|images?|snaps?|shots?)$/.test(w))
      .map((w) => stemmer(w)),
  );
}

/** Whether a text names one of a request's topics. */
export function namesTopic(text: string, topics: ReadonlySet<string>): boolean {
  return (
    text
      .toLowerCase()
      .replace(/'/g, '')
      .match(/[a-z]+/g) ?? []
  ).some((w) => topics.has(stemmer(w)));
}
