import { describe, expect, it } from 'vitest';
import type { ReferenceDialogue, ReplyResult, ResponseScore } from '../../protocol/protocol';
import { type ReplayEvent, type ReplayState, initialReplayState, nextReplayStep, replayReducer } from './replayMachine';

const dialogue: ReferenceDialogue = {
  split: 'test',
  id: '12',
  turns: [
    { elements: [{ kind: 'text', text: 'how was the nature reserve??' }] },
    {
      elements: [
        { kind: 'text', text: 'this bee was my favourite' },
        { kind: 'poolImage', key: 'ph-erase-bee', alt: 'A bee', url: '/pool/media/ph-erase-bee.webp' },
      ],
    },
    { elements: [{ kind: 'text', text: 'the bee!!' }] },
  ],
};
const reply = { elements: [{ kind: 'text', text: 'so cute', score: 0.4 }] } as ReplyResult;
const score = (f1: number): ResponseScore => ({
  mmRelevance: { pairScores: [f1], precision: f1, recall: f1, f1 },
  intentF1: { precision: 100, recall: 100, f1: 100 },
  ranks: [],
});
const run = (events: ReplayEvent[], from: ReplayState = initialReplayState) => events.reduce(replayReducer, from);

/** Plays a replay the way the controller does: take the next step, complete it, until there is none. */
function playToEnd(state: ReplayState): { state: ReplayState; steps: string[] } {
  const steps: string[] = [];
  for (let step = nextReplayStep(state); step; step = nextReplayStep(state)) {
    steps.push(`${step.kind} ${step.turn}`);
    state =
      step.kind === 'show'
        ? replayReducer(state, { type: 'shown', run: state.run, turn: step.turn })
        : run(
            [
              { type: 'composing', run: state.run, turn: step.turn },
              { type: 'scored', run: state.run, turn: step.turn, reply, score: score(10 * step.turn) },
            ],
            state,
          );
  }
  return { state, steps };
}

describe('replay of a reference dialogue', () => {
  it('shows the first turn, then composes and scores every later turn in order, and finishes', () => {
    const started = run([{ type: 'start' }, { type: 'loaded', run: 1, dialogue }]);
    expect(started.phase).toBe('playing');
    const { state, steps } = playToEnd(started);
    expect(steps).toEqual(['show 0', 'compose 1', 'compose 2']);
    expect(state.phase).toBe('finished');
    expect(state.shown).toBe(3);
    expect(state.replayed.map((r) => [r.turn, r.score.mmRelevance.f1])).toEqual([
      [1, 10],
      [2, 20],
    ]);
  });

  it('waits while a reply is being composed', () => {
    const composing = run([
      { type: 'start' },
      { type: 'loaded', run: 1, dialogue },
      { type: 'shown', run: 1, turn: 0 },
      { type: 'composing', run: 1, turn: 1 },
    ]);
    expect(composing.composing).toBe(1);
    expect(nextReplayStep(composing)).toBeNull();
  });

  it('pauses and resumes; a paused replay still takes one step at a time', () => {
    const paused = run([{ type: 'start' }, { type: 'loaded', run: 1, dialogue }, { type: 'pause' }]);
    expect(paused.phase).toBe('paused');
    expect(nextReplayStep(paused)).toEqual({ kind: 'show', turn: 0 });
    const stepped = replayReducer(paused, { type: 'shown', run: 1, turn: 0 });
    expect(stepped.phase).toBe('paused');
    expect(nextReplayStep(stepped)).toEqual({ kind: 'compose', turn: 1 });
    expect(replayReducer(stepped, { type: 'resume' }).phase).toBe('playing');
  });

  it('drops a reply that arrives after Stop or after a new replay started', () => {
    const composing = run([
      { type: 'start' },
      { type: 'loaded', run: 1, dialogue },
      { type: 'shown', run: 1, turn: 0 },
      { type: 'composing', run: 1, turn: 1 },
    ]);
    const stopped = replayReducer(composing, { type: 'stop' });
    expect(stopped).toMatchObject({ phase: 'idle', dialogue: null, replayed: [] });
    expect(replayReducer(stopped, { type: 'scored', run: 1, turn: 1, reply, score: score(50) })).toBe(stopped);
    const restarted = run([{ type: 'start' }], composing);
    expect(restarted.run).toBe(2);
    expect(replayReducer(restarted, { type: 'scored', run: 1, turn: 1, reply, score: score(50) })).toBe(restarted);
    expect(nextReplayStep(stopped)).toBeNull();
  });

  it('stops on a failure with the sentence to show', () => {
    const failed = run([
      { type: 'start' },
      { type: 'loaded', run: 1, dialogue },
      { type: 'shown', run: 1, turn: 0 },
      { type: 'composing', run: 1, turn: 1 },
      { type: 'failed', run: 1, message: 'No reply for turn 2: the pool is loading.' },
    ]);
    expect(failed).toMatchObject({ phase: 'failed', composing: null, error: 'No reply for turn 2: the pool is loading.' });
    expect(nextReplayStep(failed)).toBeNull();
  });
});
