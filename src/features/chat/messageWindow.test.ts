import { describe, expect, it } from 'vitest';
import { SHOWN_MESSAGES, visibleMessages } from './messageWindow';

const exchange = (n: number) => Array.from({ length: n * 2 }, (_, i) => ({ id: i, role: i % 2 === 0 ? ('user' as const) : ('assistant' as const) }));

describe('the messages a long conversation keeps on the page', () => {
  it('shows everything while the conversation is short', () => {
    expect(visibleMessages(exchange(30), SHOWN_MESSAGES)).toEqual({ hidden: 0, visible: exchange(30) });
  });

  it('shows the latest 60 of 300 exchanges, however long the conversation grows', () => {
    const { hidden, visible } = visibleMessages(exchange(300), SHOWN_MESSAGES);
    expect(hidden).toBe(540);
    expect(visible).toHaveLength(60);
    expect(visible[0]!.role).toBe('user');
  });

  it('never starts with a reply cut from the turn it answers', () => {
    const messages = [...exchange(40), { id: 80, role: 'user' as const }];
    const { hidden, visible } = visibleMessages(messages, SHOWN_MESSAGES);
    expect(visible[0]!.role).toBe('user');
    expect(hidden + visible.length).toBe(81);
    expect(visible).toHaveLength(61);
  });
});
