import type { DialogueRecord } from '../datasets/mmdialog';
import { hashText } from '../pool/contentHash';
import type { Modality } from './types';

/**
 * Coherence of a reply with itself: a text that invites an image ("look at this", "as requested",
 * "see for yourself") must come with one. Which phrases invite an image is read off the train split,
 * not written by hand: a phrase of one to three words invites when the train responses whose texts
 * hold it nearly always hold an image too. The composer then never ends such a reply without an
 * image (composeResponse), and the dialog benchmark reports the share of inviting replies that show one.
 */

/** A response of the train split: its texts, and whether it holds an image. */
export interface TrainResponse {
  texts: readonly string[];
  hasImage: boolean;
}

export interface InvitationOptions {
  /** Train responses a phrase must appear in (default 20), so a phrase is a habit, not a coincidence. */
  minResponses?: number;
  /** Share of those that must hold an image (default 0.97). */
  minImageShare?: number;
}

/** The response turns of a train split (every turn after the first), as ImageInvitations.learn reads them. */
export function trainResponses(train: readonly DialogueRecord[]): TrainResponse[] {
  return train.flatMap((r) =>
    r.turns
      .slice(1)
      .map((t) => ({ texts: t.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : [])), hasImage: t.elements.some((e) => e.kind === 'media') })),
  );
}

/**
 * The inviting phrases learned from a train split, shipped beside it (dialogues/train/invitations.json,
 * `npm run pool:keys`) so the page does not learn them before Ready; `responses` is the hash of what
 * they were learned from, so a file left over from another train split is not used.
 */
export interface InvitationsFile {
  version: 1;
  responses: string;
  phrases: string[];
}

function responsesHash(responses: readonly TrainResponse[]): string {
  return hashText(JSON.stringify(responses));
}

export function invitationsFile(responses: readonly TrainResponse[]): InvitationsFile {
  return { version: 1, responses: responsesHash(responses), phrases: [...ImageInvitations.learn(responses).phrases] };
}

/** The shipped phrases when the file was learned from these very responses (with the default options); null otherwise. */
export function invitationsFromFile(file: unknown, responses: readonly TrainResponse[]): ImageInvitations | null {
  if (typeof file !== 'object' || file === null) return null;
  const f = file as Partial<InvitationsFile>;
  if (f.version !== 1 || !Array.isArray(f.phrases) || !f.phrases.every((p) => typeof p === 'string' && p.trim() !== '')) return null;
  return f.responses === responsesHash(responses) ? new ImageInvitations(f.phrases) : null;
}

/** The phrases that invite an image, as word sequences; none is an extension of another. */
export class ImageInvitations {
  private readonly byFirstWord = new Map<string, string[][]>();

  constructor(readonly phrases: readonly string[]) {
    for (const phrase of phrases) {
      const words = phrase.split(' ');
      const list = this.byFirstWord.get(words[0]!) ?? [];
      list.push(words);
      this.byFirstWord.set(words[0]!, list);
    }
  }

  static none(): ImageInvitations {
    return new ImageInvitations([]);
  }

  /** The phrases of the train responses that come with an image at least minImageShare of the time. */
  static learn(responses: readonly TrainResponse[], options: InvitationOptions = {}): ImageInvitations {
    const minResponses = options.minResponses ?? 20;
    const minShare = options.minImageShare ?? 0.97;
    const counts = new Map<string, { responses: number; withImage: number }>();
    for (const response of responses) {
      const phrases = new Set(response.texts.flatMap((text) => phrasesOf(words(text))));
      for (const phrase of phrases) {
        const c = counts.get(phrase) ?? { responses: 0, withImage: 0 };
        c.responses++;
        if (response.hasImage) c.withImage++;
        counts.set(phrase, c);
      }
    }
    const inviting = [...counts].filter(([, c]) => c.responses >= minResponses && c.withImage >= minShare * c.responses).map(([phrase]) => phrase);
    // Shortest first, and a phrase that holds a shorter inviting one adds nothing.
    inviting.sort((a, b) => a.split(' ').length - b.split(' ').length || (a < b ? -1 : a > b ? 1 : 0));
    const kept: string[] = [];
    for (const phrase of inviting) if (!kept.some((k) => ` ${phrase} `.includes(` ${k} `))) kept.push(phrase);
    return new ImageInvitations(kept);
  }

  /** Whether a text holds an inviting phrase (whole words, any case). */
  invites(text: string): boolean {
    const w = words(text);
    for (let i = 0; i < w.length; i++) {
      for (const phrase of this.byFirstWord.get(w[i]!) ?? []) {
        if (phrase.every((p, k) => w[i + k] === p)) return true;
      }
    }
    return false;
  }
}

/** Lower-case words (letters, digits, apostrophes), as the phrases are counted. */
function words(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/\u2019/g, "'")
      .match(/[a-z0-9']+/g) ?? []
  );
}

function phrasesOf(w: readonly string[]): string[] {
  const out: string[] = [];
  for (let n = 1; n <= 3; n++) for (let i = 0; i + n <= w.length; i++) out.push(w.slice(i, i + n).join(' '));
  return out;
}

/** One composed reply as coherence sees it: its elements in order, texts with their text. */
export type ReplyElements = readonly { kind: Modality; text: string }[];

/** Whether a reply invites an image, and whether it shows one. */
export function replyCoherence(reply: ReplyElements, invitations: ImageInvitations): { invites: boolean; showsImage: boolean } {
  return {
    invites: reply.some((e) => e.kind === 'text' && invitations.invites(e.text)),
    showsImage: reply.some((e) => e.kind === 'image'),
  };
}

/** The coherence figure: of the replies whose text invites an image, the share that show one (1 when none invites). */
export function coherenceShare(replies: readonly { invites: boolean; showsImage: boolean }[]): { inviting: number; kept: number; share: number } {
  const inviting = replies.filter((r) => r.invites);
  const kept = inviting.filter((r) => r.showsImage).length;
  return { inviting: inviting.length, kept, share: inviting.length === 0 ? 1 : kept / inviting.length };
}
