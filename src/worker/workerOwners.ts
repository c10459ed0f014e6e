import { WORKER_METHODS, type WorkerMethod } from '../protocol/protocol';
import type { WorkerApi } from './requestHandler';

type Intersection<U> = (U extends unknown ? (part: U) => void : never) extends (part: infer I) => void ? I : never;
type Hooks = Pick<WorkerApi, 'useIdleGate' | 'useAnnouncer'>;
type Handler = (...args: unknown[]) => unknown;

/**
 * The worker's API from its owners (the pack and its pool, the stored datasets, the reference
 * dialogues): each method of the protocol's one table (WORKER_METHODS) goes to the one owner that has
 * a handler of that name, bound to it, and the hooks (the announcer, the idle gate) go to every owner
 * that takes them. The compiler checks that the owners together have every method of WorkerApi; a
 * method that no owner has, or that two have, stops the worker at its start with a sentence.
 */
export function combineOwners<Owners extends readonly object[]>(...owners: Owners): Intersection<Owners[number]> {
  const api: Record<string, unknown> = {};
  for (const name of Object.keys(WORKER_METHODS) as WorkerMethod[]) {
    const having = owners.filter((owner) => typeof (owner as Record<string, unknown>)[name] === 'function') as Record<string, Handler>[];
    if (having.length !== 1)
      throw new Error(
        `The worker's method "${name}" has ${having.length === 0 ? 'no handler' : `${having.length} handlers`}: each method of WORKER_METHODS needs exactly one owner.`,
      );
    const owner = having[0]!;
    api[name] = owner[name]!.bind(owner);
  }
  for (const hook of ['useIdleGate', 'useAnnouncer'] as const) {
    const taking = owners.filter((owner) => typeof (owner as Hooks)[hook] === 'function') as Required<Hooks>[];
    if (taking.length > 0) api[hook] = (given: never) => taking.forEach((owner) => owner[hook](given));
  }
  return api as Intersection<Owners[number]>;
}
