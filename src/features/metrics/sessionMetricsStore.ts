import { create } from 'zustand';
import type { ScoredTurn } from '../../shared/scoredTurns';

interface SessionMetricsState {
  turns: ScoredTurn[];
}

/** Every turn scored since the page opened; the running means are derived from it (sessionMeans). */
export const useSessionMetricsStore = create<SessionMetricsState>()(() => ({ turns: [] }));

export const sessionMetricsActions = {
  /** Adds a scored turn; a turn scored again (the visitor changed their answer) replaces its earlier figures. */
  record: (turn: ScoredTurn) => {
    useSessionMetricsStore.setState((s) => {
      const i = s.turns.findIndex((t) => t.id === turn.id);
      return { turns: i < 0 ? [...s.turns, turn] : s.turns.map((t, j) => (j === i ? turn : t)) };
    });
  },
  reset: () => {
    useSessionMetricsStore.setState({ turns: [] });
  },
};
