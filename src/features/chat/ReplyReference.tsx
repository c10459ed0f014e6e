import { useId, useRef, useState } from 'react';
import { answerReply } from './referenceController';
import type { ChatMessage, VisitorReference } from '../../shared/conversation';
import { MetricsHelp } from '../../shared/scores/MetricsHelp';
import { TurnScores } from '../../shared/scores/TurnScores';
import { ACCEPT } from './Composer';
import { useEmojiText } from '../../shared/ui/useEmojiText';
import { useImageUrl } from '../../shared/ui/useImageUrl';

const button =
  'rounded-lg border border-slate-300 px-2 py-1 text-xs text-slate-800 hover:bg-slate-100 disabled:text-slate-400 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600';

function AnswerPhoto({ element }: { element: Extract<VisitorReference['elements'][number], { kind: 'image' }> }) {
  const url = useImageUrl(element.imageId);
  return url ? (
    <img
      src={url}
      alt={`Your answer's photo: ${element.caption ?? element.name}`}
      className="max-h-24 w-auto self-start rounded-md border border-slate-200 object-contain"
    />
  ) : null;
}

/** The inline composer: what the visitor would have answered, as text and/or photos. */
function AnswerForm({ messageId, onDone }: { messageId: string; onDone: () => void }) {
  const [text, setText] = useState('');
  const [photos, setPhotos] = useState<File[]>([]);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const id = useId();
  const submit = async () => {
    setBusy(true);
    const outcome = await answerReply(messageId, text, photos);
    setBusy(false);
    if (outcome) setProblem(outcome);
    else onDone();
  };
  return (
    <form
      className="flex flex-col gap-2 rounded-lg bg-slate-50 p-2 ring-1 ring-slate-200"
      aria-label="Your answer to this reply"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label htmlFor={`${id}-text`} className="text-xs font-medium text-slate-800">
        What would you have answered?
      </label>
      <textarea
        id={`${id}-text`}
        rows={2}
        value={text}
        onChange={(e) => setText(e.target.value)}
        aria-describedby={`${id}-hint`}
        autoFocus
        className="rounded-lg border border-slate-300 px-2 py-1 text-sm focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600"
      />
      <p id={`${id}-hint`} className="text-xs text-slate-600">
        It becomes the reference for this reply: your text counts as the first element, photos after it.
      </p>
      <input
        ref={fileInput}
        type="file"
        accept={ACCEPT}
        multiple
        className="hidden"
        tabIndex={-1}
        aria-hidden="true"
        onChange={(e) => setPhotos(Array.from(e.target.files ?? []))}
      />
      {photos.length > 0 && <p className="text-xs text-slate-700">Photos: {photos.map((p) => p.name).join(', ')}</p>}
      <div className="flex flex-wrap gap-2">
        <button type="button" className={button} onClick={() => fileInput.current?.click()}>
          {photos.length > 0 ? 'Change photos' : 'Add a photo'}
        </button>
        <button
          type="submit"
          disabled={busy}
          className="rounded-lg bg-blue-700 px-3 py-1 text-xs font-medium text-white hover:bg-blue-800 disabled:bg-slate-400 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
        >
          {busy ? 'Scoring…' : 'Score the reply against it'}
        </button>
        <button type="button" className={button} onClick={onDone}>
          Cancel
        </button>
      </div>
      {problem && (
        <p role="alert" className="text-xs text-red-900">
          {problem}
        </p>
      )}
    </form>
  );
}

/** Under a reply: the visitor's answer and the reply's MM-Relevance against it, or the way to give one. */
export function ReplyReference({ message }: { message: ChatMessage }) {
  const [answering, setAnswering] = useState(false);
  const reference = message.reference;
  const emoji = useEmojiText();
  if (answering) return <AnswerForm messageId={message.id} onDone={() => setAnswering(false)} />;
  if (!reference) {
    return (
      <button type="button" className={`${button} self-start`} onClick={() => setAnswering(true)}>
        What would you have answered?
      </button>
    );
  }
  return (
    <div className="flex flex-col gap-1 border-t border-slate-200 pt-2" data-testid="visitor-reference">
      <p className="text-xs font-medium text-slate-800">Your answer (the reference for this reply):</p>
      {reference.elements.map((e, i) =>
        e.kind === 'text' ? (
          <p key={i} className="text-sm italic">
            {emoji(e.text)}
          </p>
        ) : (
          <AnswerPhoto key={e.imageId} element={e} />
        ),
      )}
      <TurnScores score={reference.score} label="Scores of this reply against your answer" />
      <div className="flex flex-wrap items-center gap-3">
        <button type="button" className={button} onClick={() => setAnswering(true)}>
          Answer differently
        </button>
        <MetricsHelp summary="What is this?" />
      </div>
    </div>
  );
}
