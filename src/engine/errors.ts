/**
 * Errors the engine raises carry a code the UI can branch on and a sentence a person can act on:
 * what happened, then what to do.
 */
export type EngineErrorCode =
  | 'pack-file-missing'
  | 'pack-file-corrupt'
  | 'pack-config-invalid'
  | 'image-unsupported'
  | 'image-too-large'
  | 'image-corrupt'
  | 'backend-failed'
  | 'not-loaded'
  | 'invalid-input'
  | 'dataset-invalid'
  /** The work was stopped on purpose (the person pressed Cancel, or deleted a dataset while it loaded): nothing to report as a failure. */
  | 'cancelled';

export class EngineError extends Error {
  readonly code: EngineErrorCode;
  constructor(code: EngineErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EngineError';
    this.code = code;
  }
}

/** The sentence of an error, whatever was thrown: an Error's message without its name, anything else as text. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Ends a switch over a union: a new member that is not handled fails the type check, and a malformed value at run time throws. */
export function assertNever(value: never): never {
  throw new Error(`Unexpected message: ${JSON.stringify(value)}`);
}
