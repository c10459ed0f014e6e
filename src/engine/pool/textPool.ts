import { EngineError } from '../errors';

export interface TextPoolFile {
  name: string;
  texts: string[];
}

const MAX_POOL_TEXT_LENGTH = 2000;

/** Validates a text pool file ({name, texts: string[]}) and says which entry is wrong. */
export function parseTextPool(json: unknown, location: string): TextPoolFile {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new EngineError('invalid-input', `${location}: a text pool must be an object with "name" and "texts".`);
  }
  const record = json as Record<string, unknown>;
  const texts = record['texts'];
  if (!Array.isArray(texts) || texts.length === 0) {
    throw new EngineError('invalid-input', `${location}: "texts" must be a non-empty list of strings.`);
  }
  texts.forEach((t, i) => {
    if (typeof t !== 'string' || t.trim() === '' || t.length > MAX_POOL_TEXT_LENGTH) {
      throw new EngineError('invalid-input', `${location}: texts[${i}] must be a non-empty string of at most ${MAX_POOL_TEXT_LENGTH} characters.`);
    }
  });
  const name = typeof record['name'] === 'string' ? record['name'] : 'pool';
  return { name, texts: texts as string[] };
}
