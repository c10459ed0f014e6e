import type { ReferenceDialogue, ReplyResult, ResponseScore } from '../../protocol/protocol';

/**
 * The replay of a reference dialogue as a pure state machine; the controller drives it with timers
 * and worker calls. MMDialog's protocol decides the order: the first turn is only shown, and every
 * later turn is a reference response: the engine composes its own reply to the turns before it,
 * which is shown beside the reference and scored, and the reference then joins the context.
 */
type ReplayPhase = 'idle' | 'loading' | 'playing' | 'paused' | 'finished' | 'failed';

export interface ReplayedTurn {
  /** Index of the reference turn in the dialogue (1 or more). */
  turn: number;
  reply: ReplyResult;
  score: ResponseScore;
}

export interface ReplayState {
  phase: ReplayPhase;
  /** Counts replays started or stopped, so a reply for a replay that has since stopped is dropped. */
  run: number;
  dialogue: ReferenceDialogue | null;
  /** The first `shown` turns of the dialogue are on screen. */
  shown: number;
  /** The reference turn whose reply is being composed, or null. */
  composing: number | null;
  replayed: ReplayedTurn[];
  error: string | null;
}

export type ReplayEvent =
  | { type: 'start' }
  | { type: 'loaded'; run: number; dialogue: ReferenceDialogue }
  | { type: 'shown'; run: number; turn: number }
  | { type: 'composing'; run: number; turn: number }
  | { type: 'scored'; run: number; turn: number; reply: ReplyResult; score: ResponseScore }
  | { type: 'failed'; run: number; message: string }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'stop' };

export type ReplayStep = { kind: 'show'; turn: number } | { kind: 'compose'; turn: number };

export const initialReplayState: ReplayState = { phase: 'idle', run: 0, dialogue: null, shown: 0, composing: null, replayed: [], error: null };

/** What the replay does next, or null when it waits (a reply is being composed) or has nothing left to do. */
export function nextReplayStep(state: ReplayState): ReplayStep | null {
  const { dialogue, shown, composing } = state;
  if (!dialogue || composing !== null || (state.phase !== 'playing' && state.phase !== 'paused')) return null;
  if (shown >= dialogue.turns.length) return null;
  return shown === 0 ? { kind: 'show', turn: 0 } : { kind: 'compose', turn: shown };
}

export function replayReducer(state: ReplayState, event: ReplayEvent): ReplayState {
  // Events of an earlier run (a reply that arrives after Stop or a new start) change nothing.
  if ('run' in event && event.run !== state.run) return state;
  const done = (shown: number) => (state.dialogue && shown >= state.dialogue.turns.length ? 'finished' : state.phase);
  switch (event.type) {
    case 'start':
      return { ...initialReplayState, phase: 'loading', run: state.run + 1 };
    case 'loaded':
      return { ...state, phase: 'playing', dialogue: event.dialogue, shown: 0, replayed: [] };
    case 'shown':
      if (event.turn !== state.shown) return state;
      return { ...state, shown: event.turn + 1, phase: done(event.turn + 1) };
    case 'composing':
      return event.turn === state.shown ? { ...state, composing: event.turn } : state;
    case 'scored':
      if (event.turn !== state.composing) return state;
      return {
        ...state,
        composing: null,
        shown: event.turn + 1,
        replayed: [...state.replayed, { turn: event.turn, reply: event.reply, score: event.score }],
        phase: done(event.turn + 1),
      };
    case 'failed':
      return { ...state, phase: 'failed', composing: null, error: event.message };
    case 'pause':
      return state.phase === 'playing' ? { ...state, phase: 'paused' } : state;
    case 'resume':
      return state.phase === 'paused' ? { ...state, phase: 'playing' } : state;
    case 'stop':
      return { ...initialReplayState, run: state.run + 1 };
  }
}
