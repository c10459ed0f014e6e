import { type FormEvent, useEffect, useId, useState } from 'react';
import { CLEVR_MODELS, type ClevrModelId, clevrModelName } from '../../engine/clevr/clevrModels';
import type { Scene } from '../../engine/clevr/scene';
import { QUESTION_TEMPLATES } from '../../engine/clevr/templates';
import { CorefAccuracy } from './CorefAccuracy';
import { ScenePicture } from './ScenePicture';
import { askSuggestion, askTyped, chooseModel, highlightObjects, loadSceneFile, nextScene, openClevr, backToGeneratedScenes } from './clevrController';
import { type ClevrRoundView, type ClevrSuggestion, useClevrStore } from './clevrStore';

const BUTTON =
  'rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm hover:bg-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600';

function objectName(scene: Scene, i: number): string {
  const o = scene.objects[i];
  return o ? `the ${o.size} ${o.color} ${o.material} ${o.shape}` : `object ${i}`;
}

/** What a question's "it", "them" or "the earlier …" refers to, as a chip that outlines it in the picture. */
function Reference({ round, scene, number }: { round: ClevrRoundView; scene: Scene; number: number }) {
  const history = QUESTION_TEMPLATES[round.template].history;
  if (history === 'none' || round.referents.length === 0) return null;
  const text =
    history === 'all'
      ? `“other” leaves out the ${round.referents.length} object${round.referents.length === 1 ? '' : 's'} mentioned so far`
      : round.referents.length === 1
        ? `refers to ${objectName(scene, round.referents[0]!)}, last mentioned ${round.corefDistance === 1 ? 'one round' : `${round.corefDistance} rounds`} back`
        : `“them”: the ${round.referents.length} objects of round ${number - (round.corefDistance ?? 0) === 0 ? '0 (the caption)' : number - (round.corefDistance ?? 0)}`;
  const show = () => highlightObjects(round.referents);
  return (
    <button
      type="button"
      onMouseEnter={show}
      onFocus={show}
      onClick={show}
      className="mt-1 rounded-full bg-amber-100 px-2 py-0.5 text-left text-xs text-amber-950 ring-1 ring-amber-300 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600"
      data-testid="clevr-coref"
      data-distance={round.corefDistance ?? ''}
    >
      {text}
    </button>
  );
}

function SuggestionButtons({ suggestions, label }: { suggestions: readonly ClevrSuggestion[]; label: string }) {
  return (
    <ul aria-label={label} className="flex flex-wrap gap-2">
      {suggestions.map((s) => (
        <li key={s.question}>
          <button type="button" className={`${BUTTON} text-left`} onClick={() => void askSuggestion(s)}>
            {s.question}
          </button>
        </li>
      ))}
    </ul>
  );
}

/**
 * CLEVR-Dialog (Kottur et al. 2019): a generated scene and its caption; the visitor asks questions
 * (suggested by the grammar, or typed and read by its parser), a model answers beside the scene
 * graph's true answer, references back are linked to the objects they mean, and the running accuracy
 * is shown by coreference distance.
 */
export function ClevrView() {
  const phase = useClevrStore((s) => s.phase);
  const scene = useClevrStore((s) => s.scene);
  const caption = useClevrStore((s) => s.caption);
  const rounds = useClevrStore((s) => s.rounds);
  const suggestions = useClevrStore((s) => s.suggestions);
  const parseError = useClevrStore((s) => s.parseError);
  const models = useClevrStore((s) => s.models);
  const model = useClevrStore((s) => s.model);
  const modelsNote = useClevrStore((s) => s.modelsNote);
  const sceneIndex = useClevrStore((s) => s.sceneIndex);
  const loaded = useClevrStore((s) => s.loaded);
  const fileError = useClevrStore((s) => s.fileError);
  const fileProgress = useClevrStore((s) => s.fileProgress);
  const fileId = useId();
  const [typed, setTyped] = useState('');
  const inputId = useId();
  const modelId = useId();
  useEffect(() => {
    void openClevr();
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (typed.trim() === '') return;
    if (askTyped(typed)) setTyped('');
  };

  return (
    <section aria-label="CLEVR-Dialog" className="flex min-h-0 flex-1 flex-col gap-3 overflow-y-auto p-4" data-testid="clevr-view">
      <p className="text-sm text-slate-700">
        A diagnostic dialog about a generated scene (CLEVR-Dialog, Kottur et al. 2019). Every answer is known from the scene graph, so you can see where a model
        fails, and how far back a question refers: “it”, “them” and “the earlier …” point at objects mentioned rounds before.
      </p>
      {/* The left column stretches to the row, so the picture inside it stays in sight (sticky) beside a long list of answers. */}
      <div className="grid gap-4 lg:grid-cols-[minmax(0,480px)_minmax(0,1fr)]">
        <div className="flex min-w-0 flex-col gap-2">
          <div className="flex flex-col gap-2 bg-slate-50 lg:sticky lg:-top-4 lg:z-10 lg:pt-4" data-testid="clevr-picture-panel">
            <ScenePicture description={caption ? `A generated scene of ${scene?.objects.length ?? 0} objects. ${caption.text}` : 'A generated scene'} />
            <p className="text-base font-medium text-slate-900" data-testid="clevr-caption">
              {caption?.text ?? '…'}
            </p>
          </div>
          <div className="flex flex-wrap items-center gap-2">
            <button type="button" className={BUTTON} onClick={() => void nextScene()}>
              New scene
            </button>
            <span className="text-xs text-slate-700" data-testid="clevr-scene-source">
              {loaded ? `${loaded.name}: scene ${(sceneIndex % loaded.scenes.length) + 1} of ${loaded.scenes.length}` : `generated scene ${sceneIndex + 1}`}
            </span>
          </div>
          {/* A row of its own, and the list may shrink: the options' long names are cut, not pushed into the questions. */}
          <div className="flex min-w-0 items-center gap-2">
            <label htmlFor={modelId} className="shrink-0 text-sm text-slate-800">
              Model
            </label>
            <select
              id={modelId}
              value={model}
              onChange={(e) => chooseModel(e.target.value as ClevrModelId)}
              className="w-full min-w-0 flex-1 truncate rounded-lg border border-slate-300 bg-white px-2 py-1 text-sm"
              disabled={phase !== 'ready'}
            >
              {models.map((m) => (
                <option key={m} value={m}>
                  {clevrModelName(m)} — {CLEVR_MODELS.find((x) => x.id === m)!.inputs}
                </option>
              ))}
            </select>
          </div>
          <div className="flex flex-wrap items-center gap-2 text-sm">
            {/* The file input stays the focusable control (keyboard, screen readers); the label in front of it is its button. */}
            <input
              id={fileId}
              type="file"
              accept=".json,application/json"
              className="peer sr-only"
              onChange={(e) => {
                const file = e.target.files?.[0];
                e.target.value = '';
                if (file) void loadSceneFile(file);
              }}
            />
            <label
              htmlFor={fileId}
              className={`${BUTTON} cursor-pointer peer-focus-visible:outline peer-focus-visible:outline-2 peer-focus-visible:outline-blue-600`}
            >
              Load CLEVR scenes (JSON)
            </label>
            {loaded && (
              <button type="button" className={BUTTON} onClick={() => void backToGeneratedScenes()}>
                Back to generated scenes
              </button>
            )}
          </div>
          {fileProgress && (
            <div role="status" className="flex flex-col gap-1 text-sm text-slate-800" data-testid="clevr-file-progress">
              <span>{fileProgress.text}</span>
              {/* No value while the JSON is parsed: one step with nothing to count, shown as busy. */}
              <progress
                className="h-2 w-full"
                aria-label="Reading the scene file"
                max={1}
                {...(fileProgress.fraction === null ? {} : { value: fileProgress.fraction })}
              />
            </div>
          )}
          {fileError && (
            <p role="alert" className="rounded-lg bg-red-50 p-2 text-sm text-red-900 ring-1 ring-red-300" data-testid="clevr-file-error">
              {fileError}
            </p>
          )}
          <p className="text-xs text-slate-700" data-testid="clevr-models-note">
            {phase === 'loading' ? 'Loading the CLEVR-Dialog models…' : modelsNote}
          </p>
          <CorefAccuracy />
        </div>
        <div className="flex min-w-0 flex-col gap-3">
          <ol aria-label="Questions and answers" className="flex flex-col gap-2">
            {rounds.map((r, i) => (
              <li key={i} className="rounded-lg bg-white p-3 ring-1 ring-slate-200" data-testid="clevr-round">
                <p className="text-sm font-medium text-slate-900">
                  <span className="text-slate-600">Q{i + 1}.</span> {r.question}
                </p>
                <p className="text-sm text-slate-800">
                  <span data-testid="clevr-model-answer">
                    {clevrModelName(r.model)}: {r.modelError ?? (r.modelAnswer === null ? '…' : r.modelAnswer)}
                    {r.modelAnswer !== null &&
                      (r.modelAnswer === r.truth ? <span className="ml-1 text-green-800">✓ right</span> : <span className="ml-1 text-red-800">✗ wrong</span>)}
                  </span>
                  <span className="mx-2 text-slate-400" aria-hidden="true">
                    ·
                  </span>
                  <span data-testid="clevr-truth">scene graph: {r.truth}</span>
                </p>
                {scene && <Reference round={r} scene={scene} number={i + 1} />}
              </li>
            ))}
          </ol>
          <form onSubmit={submit} className="flex flex-wrap gap-2">
            <label htmlFor={inputId} className="sr-only">
              Ask about the picture
            </label>
            <input
              id={inputId}
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              placeholder="Ask about the picture, e.g. “What colour is it?”"
              className="min-w-0 flex-1 rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm"
              disabled={!scene}
              aria-describedby={parseError ? `${inputId}-error` : undefined}
            />
            <button type="submit" className={BUTTON} disabled={!scene}>
              Ask
            </button>
          </form>
          {parseError && (
            <div
              role="alert"
              id={`${inputId}-error`}
              className="rounded-lg bg-amber-50 p-3 text-sm text-amber-950 ring-1 ring-amber-300"
              data-testid="clevr-parse-error"
            >
              <p>{parseError.reason}</p>
              <p className="mt-1">Questions the grammar can read here:</p>
              <SuggestionButtons suggestions={parseError.suggestions} label="Questions the grammar can read" />
            </div>
          )}
          <div>
            <h3 className="mb-1 text-sm font-semibold text-slate-900">Suggested questions</h3>
            <SuggestionButtons suggestions={suggestions} label="Suggested questions" />
          </div>
        </div>
      </div>
    </section>
  );
}
