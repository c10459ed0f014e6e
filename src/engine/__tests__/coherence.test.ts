import { describe, expect, it } from 'vitest';
import { ImageInvitations, coherenceShare, invitationsFile, invitationsFromFile, replyCoherence } from '../response/coherence';

const withImage = (...texts: string[]) => ({ texts, hasImage: true });
const textOnly = (...texts: string[]) => ({ texts, hasImage: false });

describe('image invitations, learned from train responses', () => {
  it('keeps the phrases that nearly always come with an image, shortest first, and no extension of a kept one', () => {
    const responses = [
      ...Array.from({ length: 4 }, () => withImage('look at this')),
      withImage('Look at THIS one'),
      withImage('as requested'),
      withImage('as requested'),
      textOnly('look who is talking'),
      textOnly('this is fun'),
      textOnly('this is fun'),
      withImage('this is fun'),
      textOnly('at home now'),
      textOnly('at work'),
    ];
    const invitations = ImageInvitations.learn(responses, { minResponses: 2, minImageShare: 0.97 });
    // "look" 5 of 6 and "at" 5 of 7 are not kept; "at this" and "look at" (5 of 5) are, and "look at this"
    // holds them; "as", "requested" 2 of 2; "one" is in 1 response only; "this" 6 of 8.
    expect(invitations.phrases).toEqual(['as', 'requested', 'at this', 'look at']);
    expect(invitations.invites('so good, look AT that')).toBe(true);
    expect(invitations.invites('this is fun')).toBe(false);
    expect(invitations.invites('cat')).toBe(false); // whole words only
  });

  it('needs a phrase to be seen often enough', () => {
    const invitations = ImageInvitations.learn([withImage('tadaa'), withImage('tadaa'), textOnly('hi')], { minResponses: 3 });
    expect(invitations.phrases).toEqual([]);
  });

  it('matches multi-word phrases as whole word sequences', () => {
    const invitations = new ImageInvitations(['look at this', 'as requested']);
    expect(invitations.invites('so good, look at this!!')).toBe(true);
    expect(invitations.invites('Look at this good boy')).toBe(true);
    expect(invitations.invites('look at these')).toBe(false);
    expect(invitations.invites('here, as requested')).toBe(true);
    expect(invitations.invites('as you requested')).toBe(false);
  });
});

describe('image invitations shipped with the train split', () => {
  const responses = Array.from({ length: 40 }, (_, i) => (i % 2 ? withImage('look at this') : textOnly('hello there')));

  it('are the phrases learned from it, and are used for the very responses they were learned from', () => {
    const file = invitationsFile(responses);
    expect(file.phrases).toEqual(['at', 'look', 'this']);
    expect(invitationsFromFile(JSON.parse(JSON.stringify(file)), responses)?.phrases).toEqual(['at', 'look', 'this']);
  });

  it('are not used for another train split, nor when the file is not one', () => {
    const file = invitationsFile(responses);
    expect(invitationsFromFile(file, [...responses.slice(1), withImage('look at that')])).toBeNull();
    expect(invitationsFromFile({ ...file, version: 2 }, responses)).toBeNull();
    expect(invitationsFromFile({ ...file, phrases: [''] }, responses)).toBeNull();
    expect(invitationsFromFile(null, responses)).toBeNull();
  });
});

describe('the coherence figure', () => {
  const invitations = new ImageInvitations(['look at this']);
  it('is the share of inviting replies that show an image', () => {
    const replies = [
      [
        { kind: 'text' as const, text: 'look at this' },
        { kind: 'image' as const, text: 'a dog' },
      ],
      [
        { kind: 'image' as const, text: 'a dog' },
        { kind: 'text' as const, text: 'look at this' },
      ],
      [{ kind: 'text' as const, text: 'look at this' }],
      [{ kind: 'text' as const, text: 'nice' }],
      [{ kind: 'image' as const, text: 'look at this' }], // a caption is not the reply's own text
    ].map((r) => replyCoherence(r, invitations));
    expect(replies.map((r) => r.invites)).toEqual([true, true, true, false, false]);
    expect(coherenceShare(replies)).toEqual({ inviting: 3, kept: 2, share: 2 / 3 });
  });

  it('is 1 when no reply invites an image', () => {
    expect(coherenceShare([{ invites: false, showsImage: false }])).toEqual({ inviting: 0, kept: 0, share: 1 });
  });
});
