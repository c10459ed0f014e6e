import type { TurnFigures } from '../engine/metrics/sessionMetrics';

/** One scored turn of this visit: a replayed reference turn, or a reply the visitor answered. */
export interface ScoredTurn {
  id: string;
  source: 'replay' | 'chat';
  /** Where it came from, in words: "test dialogue 12, turn 3" or "your answer". */
  label: string;
  figures: TurnFigures;
}

type Listener = (turn: ScoredTurn) => void;
const listeners = new Set<Listener>();

/**
 * Replay and chat report each turn they score here; the metrics feature listens (app/startApp.ts
 * connects them), so neither has to import the other.
 */
export function reportScoredTurn(turn: ScoredTurn): void {
  for (const listener of listeners) listener(turn);
}

export function onScoredTurn(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
