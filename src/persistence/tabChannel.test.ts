import { describe, expect, it } from 'vitest';
import { tabChannel } from './tabChannel';

/** Posts 'end' from a channel of its own, and resolves once `heard` ends with it: what was posted before has arrived. */
async function untilEnd(name: string, heard: string[]): Promise<void> {
  const closing = new BroadcastChannel(name);
  closing.postMessage('end');
  while (heard.at(-1) !== 'end') await new Promise((resolve) => setTimeout(resolve, 1));
  closing.close();
}

describe('tabChannel', () => {
  it("does not hear this tab's own messages, though a second channel of the same name in the tab would", async () => {
    const name = 'tab-channel-own';
    const channel = tabChannel<string>(name);
    const heard: string[] = [];
    const stop = channel.listen((message) => heard.push(message));
    const sameTabSecondChannel = new BroadcastChannel(name);
    const heardBySecond: string[] = [];
    sameTabSecondChannel.onmessage = (event: MessageEvent<string>) => heardBySecond.push(event.data);

    channel.post('new-conversation');
    await untilEnd(name, heard);
    expect(heard).toEqual(['end']);
    expect(heardBySecond).toEqual(['new-conversation', 'end']);
    stop();
    sameTabSecondChannel.close();
  });

  it("hears another tab's messages, in order, until unsubscribed", async () => {
    const name = 'tab-channel-other';
    const mine = tabChannel<string>(name);
    const otherTab = tabChannel<string>(name);
    const heard: string[] = [];
    const stop = mine.listen((message) => heard.push(message));

    otherTab.post('messages');
    otherTab.post('restored');
    await untilEnd(name, heard);
    expect(heard).toEqual(['messages', 'restored', 'end']);

    stop();
    const heardAfter: string[] = [];
    const stopAfter = otherTab.listen((message) => heardAfter.push(message));
    mine.post('messages');
    await untilEnd(name, heardAfter);
    expect(heardAfter).toEqual(['messages', 'end']);
    expect(heard).toEqual(['messages', 'restored', 'end']);
    stopAfter();
  });
});
