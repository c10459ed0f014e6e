import { SCREEN_CATEGORIES, type ScreenCategoryId, screenCategoryOf } from './screenLists';

/**
 * Each visitor message is screened before anything is ranked: at a public booth anyone can type
 * anything, and a line from someone else's conversation, or a picture, can read as playing along. A
 * flagged message gets one of the lines below, written for this demo, and nothing from the pool.
 */
export type VisitorScreenCategory = Exclude<ScreenCategoryId, 'politics'> | 'unchecked' | 'photo' | 'video';

export interface VisitorScreen {
  /** null: the message may be answered as any other. 'unchecked': screening itself failed, so it is answered as flagged. */
  readonly category: VisitorScreenCategory | null;
}

/** What a flagged message is answered with, by category; the second line for a second time in a conversation. */
export const SCREEN_REPLY_LINES: Readonly<Record<VisitorScreenCategory, readonly [string, string]>> = {
  // No number: the page cannot know where the visitor is, and a wrong helpline is worse than none.
  'self-harm': [
    "I'm really sorry you're feeling this way. I'm only a demo and can't help the way a person can, so please talk to someone you trust, or call a local crisis helpline. If you're in danger right now, call your local emergency number.",
    "You matter, and you don't have to go through this alone. Please reach out to someone close to you or to a local crisis line; talking to a real person can help.",
  ],
  violence: [
    "I won't help with hurting anyone. If someone is in danger, please contact your local emergency services. I'm happy to talk about something else.",
    "That's not something I'll talk about. Let's chat about something else: how has your day been?",
  ],
  sexual: [
    "Let's keep things friendly: this is a public demo. Tell me about your day, or share a photo of something you like?",
    "I'll pass on that one. Want to talk about travel, food or pets instead?",
  ],
  hate: [
    "I'm not going to join in on that: everyone is welcome here. Let's talk about something else?",
    "I'd rather keep this chat kind to everyone. What else is on your mind?",
  ],
  drugs: [
    "That's not something I can help with here. Want to talk about something else, or show me a photo?",
    "I'll skip that topic. Tell me what you've been up to lately?",
  ],
  'personal-data': [
    "Let's keep personal details like phone numbers, addresses and passwords out of this chat: it's a public demo. What else would you like to talk about?",
    "Better not to share personal details here, yours or anyone's. Shall we talk about something else?",
  ],
  insults: [
    "Let's keep it friendly: this is a public demo. What would you like to talk about?",
    'No hard feelings! Want to try a different topic, or share a photo?',
  ],
  // A shared photo the photo check calls unfit (perception/photoCheck.ts): not looked at, not answered.
  photo: [
    "I'd rather not look at that photo here: this is a public demo. Want to share a different one?",
    "Let's stick to photos everyone can see. Try another one, or tell me about your day?",
  ],
  // A shared video with a frame the photo check calls unfit: not watched, not answered about.
  video: [
    "I'd rather not watch that video here: this is a public demo. Want to share a different one?",
    "Let's stick to videos everyone can see. Try another one, or ask me something else?",
  ],
  unchecked: [
    "Sorry, I couldn't check that message, so I won't answer it. Could you say it another way?",
    "I still couldn't check that one. Try a shorter message, or reload the page if this keeps happening.",
  ],
};

/** What the Inspector says a message was screened for: the category, never the text. */
export function screenCategoryLabel(category: VisitorScreenCategory): string {
  if (category === 'unchecked') return 'could not be checked';
  if (category === 'photo') return 'a photo unfit for a public screen';
  if (category === 'video') return 'a video unfit for a public screen';
  return SCREEN_CATEGORIES[category].label;
}

/**
 * Screens what a visitor typed (the texts of one turn, read together). Never throws: if the lists fail
 * (a package that did not load, a pattern the engine rejects), the message counts as flagged, never as
 * screened and clean.
 */
export function screenVisitorMessage(texts: readonly string[], categoryOf: typeof screenCategoryOf = screenCategoryOf): VisitorScreen {
  try {
    for (const text of texts) {
      const category = categoryOf(text, { reader: 'visitor' });
      if (category) return { category: category === 'politics' ? null : category };
    }
    return { category: null };
  } catch (error) {
    console.warn('Screening a message failed, so it is answered as flagged:', error instanceof Error ? error.message : String(error));
    return { category: 'unchecked' };
  }
}

/**
 * Screens one harmless line, so that the lists' patterns are compiled before a visitor's first turn:
 * V8 compiles a regular expression at its first use, and the first screen cost that turn about 45 ms.
 */
export function prepareVisitorScreen(): void {
  screenVisitorMessage(['hello there, how is your day going?']);
}

/**
 * The line for a flagged message: the category's first, then the one said longer ago, so the two
 * alternate (the first, with the emergency number advice for self-harm, is never left behind).
 * `lastSaid` gives where in the conversation a line was said last (-1: never).
 */
export function screenReplyLine(category: VisitorScreenCategory, lastSaid: (line: string) => number): string {
  const [first, second] = SCREEN_REPLY_LINES[category];
  return lastSaid(first) <= lastSaid(second) ? first : second;
}
