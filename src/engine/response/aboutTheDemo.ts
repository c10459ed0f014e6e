/**
 * What the demo says about itself. A visitor who asks what this is, how it works, whether their photo
 * is uploaded or who made it gets a true answer, not a line from someone else's conversation ("Who
 * made you?" must not be answered "My mother, of course."). The lines are written for the demo (the
 * pool credits them as written for this project, topic ABOUT_THE_DEMO_TOPIC; `npm run pool:human` puts
 * them in texts.json), and each is given only when its question is asked: the session answers with the
 * first of an entry's lines not said yet in the conversation, and otherwise never offers them.
 *
 * Each entry's questions are patterns over the visitor's whole line (lower case, without the
 * punctuation at its ends), written for the phrasings a booth visitor uses; a line that only mentions
 * the demo in passing is answered as any other.
 */
export const ABOUT_THE_DEMO_TOPIC = 'about-the-demo';

interface AboutTheDemoEntry {
  readonly id: string;
  /** The visitor's line, normalised (aboutTheDemoQuestion), matches one of these. */
  readonly asks: readonly RegExp[];
  /** What is said, first line first; a second for a second asking. */
  readonly lines: readonly string[];
  /** Asked about a picture just shown, by the visitor or in the reply before ("what is this?"), the line is about the picture, not the demo. */
  readonly notWithPhoto?: true;
}

const YOU = String.raw`(?:you|u|ya)`;
const BOT = String.raw`(?:you|u|this thing|this bot|this demo|this app|this page|this chat|this chatbot)`;
const PHOTO = String.raw`photo|photos|picture|pictures|pic|pics|image|images|data|selfie|selfies`;

export const ABOUT_THE_DEMO: readonly AboutTheDemoEntry[] = [
  {
    id: 'what-is-this',
    asks: [
      /^(?:so |ok |okay |hey |hi |um |uh )?(?:what|whats|what's) (?:is )?(?:this|that|it)(?: thing| demo| app| page| site| booth| about| exactly| all about)*$/,
      /^what (?:does|can) (?:this|this demo|this app|it) do$/,
      /^what am i looking at$/,
      /^what(?:'s| is) (?:this demo|the demo|this app|this booth)(?: about| for)?$/,
      /\bwhat is (?:this|the) demo\b/,
    ],
    lines: [
      'This is a demo of multimodal chat from the MMDialog paper (Feng et al., ACL 2023): you talk and share photos, and I answer with texts and pictures picked from a fixed pool, all inside your browser.',
      "It's a research demo: every reply I give is chosen from about 65,000 lines and 1,800 images, not written by me.",
    ],
    notWithPhoto: true,
  },
  {
    id: 'how-do-you-work',
    asks: [
      /\bhow (?:do|does) (?:you|u|this|this thing|this bot|this demo|this app|it) (?:work|do it|choose|pick|answer|reply)\b/,
      /\bhow (?:are|were) (?:you|u) (?:made|built|trained|programmed)\b/,
      /\bwhat (?:model|models|algorithm|tech|technology) (?:are you|do you use|is this|does this use)\b/,
      /^explain (?:yourself|how you work)$/,
    ],
    lines: [
      "I don't write anything myself: for each reply, small models running in your browser rank lines people wrote and pick the best fit, and images come from a pool of about 1,800 pictures.",
      'A conversational encoder, keyword matching and the contexts those lines first answered all vote on each reply; a separate module decides whether to add a picture.',
    ],
  },
  {
    id: 'photo-uploaded',
    asks: [
      new RegExp(
        String.raw`\b(?:is|are|was|were|do|does|did|will|does) (?:my|the|this|these|our) (?:${PHOTO}) (?:get |being |going to be |be )?(?:uploaded|stored|saved|kept|sent|shared|private|safe|secure)\b`,
      ),
      new RegExp(
        String.raw`\b(?:do|did|will|are|can) ${YOU} (?:upload|uploading|store|storing|save|saving|keep|keeping|send|sending|share|sharing) (?:my|the|our|these|this|that|any) (?:\w+ )?(?:${PHOTO})\b`,
      ),
      new RegExp(String.raw`\bwhere (?:does|do|did|will) (?:my|the) (?:${PHOTO}) go\b`),
      new RegExp(String.raw`\bwho can see (?:my|the|this) (?:${PHOTO})\b`),
      /\bis (?:this|it|my data|my photo) (?:private|safe|secure)\b/,
      /\b(?:does|do|is) (?:this|it|the demo|the app) (?:upload|send|store|save|collect)\b/,
    ],
    lines: [
      'No, nothing is uploaded: your photo is looked at by models running in this browser tab, and it stays on this device.',
      'Everything happens on your device: the photos you share and this conversation are kept only in this browser, never on a server.',
    ],
  },
  {
    id: 'who-made-you',
    asks: [
      new RegExp(String.raw`\bwho (?:made|built|created|programmed|wrote|designed|developed|trained|makes) ${BOT}\b`),
      /^who (?:made|built|created|designed|developed) (?:this|it)$/,
      new RegExp(String.raw`\bwho(?:'s| is) (?:behind|responsible for) ${BOT}\b`),
      /\bwho do (?:you|u) work for\b/,
    ],
    lines: [
      'A small team built me as a browser demo of the MMDialog paper; the lines I answer with come from real conversations in DailyDialog and Topical-Chat, credited under Credits.',
      "The team behind this demo. I'm their retrieval system from the MMDialog paper, running in your browser.",
    ],
  },
  {
    id: 'what-are-you',
    asks: [
      new RegExp(String.raw`^(?:so |and )?what (?:are|r) ${YOU}(?: exactly| really)?$`),
      new RegExp(
        String.raw`\bare ${YOU} (?:a |an )?(?:real|human|person|bot|robot|ai|a\.i\.|machine|computer|program|chatbot|chat bot|alive|sentient|chatgpt|gpt)\b`,
      ),
      new RegExp(String.raw`\bam i (?:talking|chatting|speaking) (?:to|with) (?:a |an )?(?:real |)(?:person|human|bot|robot|ai|machine|computer)\b`),
      new RegExp(String.raw`\bis (?:this|there) a (?:real )?(?:person|human)\b`),
    ],
    lines: [
      "I'm a chat bot, not a person: a demo that answers with lines from real conversations, picked by small models running in your browser.",
      "Not a person, and not a big language model either: I can't write new sentences, I only choose from lines people wrote.",
    ],
  },
  {
    id: 'your-name',
    asks: [new RegExp(String.raw`\bwhat(?:'s| is|s) (?:your|ur) name\b`), new RegExp(String.raw`^who (?:are|r) ${YOU}$`), /\bdo (?:you|u) have a name\b/],
    lines: ["I don't have a name, I'm the MMDialog browser demo. What's yours?", 'Just the MMDialog demo, no name of my own.'],
  },
  {
    id: 'where-do-you-live',
    asks: [
      new RegExp(String.raw`\bwhere (?:do|d) ${YOU} (?:live|come from|stay)\b`),
      new RegExp(String.raw`\bwhere (?:are|r) ${YOU} (?:from|based|located|running)\b`),
      /\bwhere(?:'s| is) (?:your|ur) (?:home|hometown|server)\b/,
    ],
    lines: ['I live in this browser tab: everything I do runs on your device.', 'Right here in your browser, no server anywhere.'],
  },
  {
    id: 'pets',
    asks: [new RegExp(String.raw`\bdo ${YOU} (?:have|own|got) (?:any |a )?(?:pets?|dogs?|cats?|animals?)\b`)],
    lines: ["No pets, I'm a program in your browser! Tell me about yours?", 'Still no pets for me, but I love seeing yours.'],
  },
  {
    id: 'kids',
    asks: [
      new RegExp(String.raw`\bdo ${YOU} have (?:any )?(?:kids|children|a family|a wife|a husband|a partner|siblings|brothers|sisters)\b`),
      /\bare (?:you|u) married\b/,
    ],
    lines: ["No family for me, I'm just a chat demo. Tell me about yours?", "Nope, I'm a computer program, so no family."],
  },
  {
    id: 'age',
    asks: [new RegExp(String.raw`\bhow old (?:are|r) ${YOU}\b`), /\bwhen (?:were you|was this) (?:born|made|built)\b/, /\bwhat(?:'s| is) (?:your|ur) age\b/],
    lines: ["No birthday for me, I'm a computer program.", "I don't have an age, I'm a program."],
  },
  {
    id: 'eat-drink',
    asks: [
      new RegExp(String.raw`\bdo ${YOU} (?:eat|drink|sleep|get tired|dream)\b`),
      /\bwhat(?:'s| is) (?:your|ur) fav(?:ou?rite)? (?:food|drink|dish|meal|snack)\b/,
      new RegExp(String.raw`\bwhat do ${YOU} (?:like to )?(?:eat|drink)\b`),
    ],
    lines: ["I don't eat or sleep, I'm a program! What's your favourite?", 'Nothing for me, but tell me what you like.'],
  },
  {
    id: 'what-can-you-see',
    asks: [
      new RegExp(String.raw`\bwhat can ${YOU} (?:see|recognise|recognize|detect|tell)\b`),
      new RegExp(String.raw`\bcan ${YOU} (?:see|read|recognise|recognize|understand) (?:my |the |this |photos|pictures|images|faces|text|what)\b`),
    ],
    lines: [
      "I can name about 80 kinds of everyday things in a photo (people, animals, vehicles, food, furniture) when they're big and clear; I can't read text or recognise faces.",
      "An object detector tells me what's in your photo when it's clear enough; otherwise I only have your words to go on.",
    ],
  },
  {
    id: 'languages',
    asks: [
      /\bdo (?:you|u) speak\b/,
      /\b(?:hablas|habla usted|parlez[- ]vous|parles[- ]tu|sprichst du|sprechen sie|parli|falas|spreek je)\b/,
      /\bcan (?:you|u) (?:speak|talk|write|reply|answer) (?:in )?(?:french|spanish|german|italian|chinese|japanese|portuguese|dutch|hindi|arabic|russian|korean|another language|other languages)\b/,
    ],
    lines: ['I only speak English, sorry! The lines I reply with all come from English conversations.', 'English only, I am afraid.'],
  },
  {
    id: 'facts-and-sums',
    asks: [
      /^(?:so |hey |ok |quick question,? )?what(?:'s| is| was) the (?:capital|population|currency|weather|forecast|time|date|score|price|tallest|biggest|largest|longest)\b/,
      /\bwhat(?:'s| is) \d+(?:\.\d+)? ?(?:times|plus|minus|divided by|multiplied by|x|\*|\+|-|\/) ?\d+/,
      /^(?:can|could) (?:you|u) (?:calculate|compute|solve|do maths|do math|look up|google|search|translate)\b/,
      /^(?:who won|who is the president|who's the president|how far is|how many people live)\b/,
    ],
    lines: [
      "I can't look things up or do sums: all I can do is pick a line from conversations people had. Ask me about your day instead?",
      "That's beyond me, I only know the chit-chat in my pool of lines.",
    ],
  },
  {
    id: 'joke',
    asks: [/\b(?:tell|know) (?:me )?(?:a|any|some) (?:good )?jokes?\b/, /^(?:make me laugh|say something funny)$/],
    lines: ["I'm no good at jokes: I can only pick lines from real conversations. Tell me one?", 'Jokes are not my strong side, sorry!'],
  },
  {
    id: 'do-you-remember',
    asks: [
      new RegExp(String.raw`\b(?:do|will) ${YOU} remember (?:me|this|our|what)\b`),
      /\bis (?:this|our) (?:conversation|chat) (?:saved|stored|recorded|private)\b/,
      new RegExp(String.raw`\bare ${YOU} (?:recording|logging|saving) (?:this|me|our)\b`),
    ],
    lines: [
      "This conversation is kept only in this browser, so it's still here after a reload; nothing goes to a server.",
      "Only this browser keeps our chat; start a new conversation and it's gone from here.",
    ],
  },
];

/**
 * What the demo says to a line it can read nothing in: keyboard mash, emoji alone, another script, no word
 * that any line of its pool holds (the session decides; NOT_UNDERSTOOD.asks is empty). A friendly person
 * says they did not get it, rather than answering at random.
 */
export const NOT_UNDERSTOOD: AboutTheDemoEntry = {
  id: 'not-understood',
  asks: [],
  lines: ["Sorry, I didn't catch that. Could you say it another way?", "Hmm, I can't make sense of that one. I only understand English chat."],
};

/** A visitor's line as the patterns read it: lower case, one space between words, no punctuation at either end. */
function aboutTheDemoQuestion(text: string): string {
  return text
    .toLowerCase()
    .replace(/[’]/g, "'")
    .replace(/\s+/g, ' ')
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')
    .trim();
}

/** The entry a visitor's line asks about, or null; `withPhoto`: a picture came with the line or with the reply before it. */
export function aboutTheDemoEntry(text: string, withPhoto: boolean): AboutTheDemoEntry | null {
  const line = aboutTheDemoQuestion(text);
  if (line === '') return null;
  return ABOUT_THE_DEMO.find((entry) => !(withPhoto && entry.notWithPhoto) && entry.asks.some((ask) => ask.test(line))) ?? null;
}

/** Reads one line, so that the patterns are compiled before a visitor's first turn (about 20 ms of it on WASM's worker). */
export function prepareAboutTheDemo(): void {
  aboutTheDemoEntry('hello there, how is your day going?', false);
}

/** Every line the demo may say about itself, in order (what pool:human writes to texts.json). */
export function aboutTheDemoLines(): string[] {
  return [...ABOUT_THE_DEMO, NOT_UNDERSTOOD].flatMap((entry) => entry.lines);
}
