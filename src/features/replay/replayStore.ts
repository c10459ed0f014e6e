import { create } from 'zustand';
import { type ReplayEvent, type ReplayState, initialReplayState, replayReducer } from './replayMachine';
import type { ReferenceDialogueSummary, ReferenceSplit } from '../../protocol/protocol';

/** Pause between replay steps, so a person can read each turn and its scores. */
export const REPLAY_SPEEDS = { slow: 3000, normal: 1500, fast: 300 } as const;
export type ReplaySpeed = keyof typeof REPLAY_SPEEDS;

interface ReplayStoreState {
  split: ReferenceSplit;
  /** The dialogue to replay: an id of the split, or 'random'. */
  choice: string;
  /** The split's dialogues for the chooser; null until listed. */
  dialogues: ReferenceDialogueSummary[] | null;
  /** The pool and split they were listed for ("demo:test"): another pool has other dialogues. */
  listedFor: string | null;
  listError: string | null;
  speed: ReplaySpeed;
  machine: ReplayState;
}

export const useReplayStore = create<ReplayStoreState>()(() => ({
  split: 'test',
  choice: 'random',
  dialogues: null,
  listedFor: null,
  listError: null,
  speed: 'normal',
  machine: initialReplayState,
}));

export const replayActions = {
  chooseSplit(split: ReferenceSplit) {
    useReplayStore.setState({ split, choice: 'random', dialogues: null, listedFor: null, listError: null });
  },
  choose(choice: string) {
    useReplayStore.setState({ choice });
  },
  /** Marks the list as asked for, so it is asked once per pool and split, whatever the answer. */
  listing(listedFor: string) {
    useReplayStore.setState({ listedFor, dialogues: null, choice: 'random' });
  },
  listed(listedFor: string, dialogues: ReferenceDialogueSummary[]) {
    if (useReplayStore.getState().listedFor === listedFor) useReplayStore.setState({ dialogues, listError: null });
  },
  listFailed(message: string) {
    useReplayStore.setState({ listError: message });
  },
  setSpeed(speed: ReplaySpeed) {
    useReplayStore.setState({ speed });
  },
  dispatch(event: ReplayEvent) {
    useReplayStore.setState((s) => ({ machine: replayReducer(s.machine, event) }));
  },
};
