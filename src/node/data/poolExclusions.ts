import { readFileSync } from 'node:fs';
import { BOOTH_FILTER_REASONS, type BoothFilterReason } from '../../engine/conversations/boothFilter';
import { textKey } from '../../engine/pool/textKey';

/**
 * The reviewed exclusion list (src/node/data/pool-exclusions.json): texts a person read and judged
 * unfit for a booth that the lists let through, by text key (textKey, so any re-typing of the text is
 * left out too) with the reason. `npm run pool:human` leaves them out of the pool.
 */
interface PoolExclusion {
  key: string;
  reason: BoothFilterReason | 'other';
  note?: string;
}

/** The keys to leave out; a malformed file stops the command with what to fix, since a silent skip would ship what a person excluded. */
export function readPoolExclusions(file: string): Set<string> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Could not read the reviewed exclusion list ${file} (${(error as Error).message}). Fix the file, or pass --exclusions with another.`);
  }
  const list = (json as { exclusions?: unknown }).exclusions;
  if (!Array.isArray(list)) throw new Error(`${file}: "exclusions" must be a list of {"key", "reason"}.`);
  const reasons = new Set<string>([...BOOTH_FILTER_REASONS, 'other']);
  return new Set(
    list.map((raw: unknown, i) => {
      const entry = raw as Partial<PoolExclusion>;
      if (typeof entry?.key !== 'string' || entry.key === '') throw new Error(`${file}: exclusions[${i}] has no "key".`);
      if (textKey(entry.key) !== entry.key)
        throw new Error(`${file}: exclusions[${i}].key "${entry.key}" is not a text key; its key is "${textKey(entry.key)}".`);
      if (typeof entry.reason !== 'string' || !reasons.has(entry.reason))
        throw new Error(`${file}: exclusions[${i}].reason must be one of ${[...reasons].join(', ')}.`);
      return entry.key;
    }),
  );
}
