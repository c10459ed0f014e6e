import { describe, expect, it } from 'vitest';
import { WORKER_METHODS, type WorkerMethod } from '../protocol/protocol';
import { combineOwners } from './workerOwners';

/** An owner whose handlers sit on its prototype, as a class's methods do; each answers with its owner's name and the method. */
function owner(name: string, methods: readonly string[]): Record<string, unknown> {
  const prototype: Record<string, unknown> = {};
  for (const method of methods)
    prototype[method] = function (this: { name: string }) {
      return Promise.resolve(`${this.name}.${method}`);
    };
  return Object.assign(Object.create(prototype) as Record<string, unknown>, { name });
}

const all = Object.keys(WORKER_METHODS) as WorkerMethod[];

describe('combineOwners', () => {
  it('gives each method of the protocol to the owner that has it, bound to that owner', async () => {
    const first = owner(
      'pack',
      all.filter((m) => m !== 'replayTurn'),
    );
    const second = owner('references', ['replayTurn']);
    const api = combineOwners(first, second) as Record<string, () => Promise<string>>;
    expect(await api['replayTurn']!()).toBe('references.replayTurn');
    expect(await api['reply']!()).toBe('pack.reply');
  });

  it('refuses a method that no owner has, and one that two owners have, naming it', () => {
    expect(() =>
      combineOwners(
        owner(
          'pack',
          all.filter((m) => m !== 'replayTurn'),
        ),
      ),
    ).toThrow('The worker\'s method "replayTurn" has no handler');
    expect(() => combineOwners(owner('pack', all), owner('references', ['replayTurn']))).toThrow('The worker\'s method "replayTurn" has 2 handlers');
  });

  it('hands the announcer to every owner that takes one', () => {
    const heard: string[] = [];
    const taking = (name: string, methods: readonly string[]) => Object.assign(owner(name, methods), { useAnnouncer: () => heard.push(name) });
    const api = combineOwners(
      taking(
        'pack',
        all.filter((m) => m !== 'replayTurn'),
      ),
      taking('references', ['replayTurn']),
    );
    (api as { useAnnouncer: (announce: () => void) => void }).useAnnouncer(() => undefined);
    expect(heard).toEqual(['pack', 'references']);
  });
});
