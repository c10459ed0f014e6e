import { type ReactNode, useEffect, useRef } from 'react';
import { CONFIDENT_SCORE, HEDGE_SCORE } from '../../engine/detection/groundedCaption';
import { methodName } from '../../engine/response/methods';
import { screenCategoryLabel } from '../../engine/safety/visitorScreen';
import type { ChatMessage, PhotoElement, PoolReplyMeta } from '../../shared/conversation';
import { SHORTCUTS } from '../../shared/keyCommands';
import { panelActions } from '../../shared/stores/panelStore';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import { useEmojiText } from '../../shared/ui/useEmojiText';
import { useImageUrl, usePoolImageUrl } from '../../shared/ui/useImageUrl';
import { DetectionOverlay, scoreText } from './DetectionOverlay';
import { VideoDetails, latestVideo } from './VideoDetails';
import type { DetectedObject, ReplyCandidate, ReplyStep } from '../../protocol/protocol';

const INTENTS = ['text', 'image', 'stop'] as const;
const TIMINGS: { key: keyof PoolReplyMeta['timings']; label: string }[] = [
  { key: 'decodeMs', label: 'Decode photos' },
  { key: 'detectMs', label: 'Detect objects' },
  { key: 'encodeMs', label: 'Encode (CLIP)' },
  { key: 'captionMs', label: 'Caption photos' },
  { key: 'intentMs', label: 'Intent' },
  { key: 'rankMs', label: 'Rank' },
  { key: 'totalMs', label: 'Total' },
];

/** The last reply, and the photos of the person's turn it answered. */
function lastExchange(messages: readonly ChatMessage[]): { reply: PoolReplyMeta; photos: PhotoElement[] } | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const reply = messages[i]!.reply;
    // An answer about a video is shown by VideoDetails.
    if (!reply || reply.video || !reply.timings) continue;
    let turn = i - 1;
    while (turn >= 0 && messages[turn]!.role !== 'user') turn--;
    const photos = turn >= 0 ? messages[turn]!.elements.filter((e): e is PhotoElement => e.kind === 'image') : [];
    return { reply, photos };
  }
  return null;
}

function objectText(o: DetectedObject): string {
  const r = (v: number) => Math.round(v);
  return `${o.label}, score ${scoreText(o.score)}, at x ${r(o.box.x1)} to ${r(o.box.x2)}, y ${r(o.box.y1)} to ${r(o.box.y2)} px`;
}

/** One photo of the turn: the detector's boxes drawn over it, and the same as a list for screen readers and presenters. */
function PhotoObjects({ photo, index }: { photo: PhotoElement; index: number }) {
  const url = useImageUrl(photo.imageId);
  const detections = photo.detections;
  const name = `photo ${index + 1}`;
  return (
    <li className="flex flex-col gap-2 rounded-xl bg-white p-3 ring-1 ring-slate-200" data-testid="inspector-photo">
      <div className="relative inline-block self-start">
        {url ? (
          <img
            src={url}
            alt={`Your ${name}: ${photo.caption ?? photo.name}`}
            width={photo.width}
            height={photo.height}
            className="block h-auto max-h-64 w-auto max-w-full rounded-md"
          />
        ) : (
          <div className="flex h-24 w-32 items-center justify-center rounded-md bg-slate-200 text-xs text-slate-700">{photo.name}</div>
        )}
        {url && detections && <DetectionOverlay detections={detections} />}
      </div>
      {photo.caption && (
        <p className="text-sm">
          {photo.captionSource === 'captioner' ? 'Caption (captioning model)' : 'Caption'}: <q data-testid="inspector-caption">{photo.caption}</q>
        </p>
      )}
      {photo.groundedCaption !== undefined && (
        <p className="text-sm text-slate-700">
          Grounded caption, for comparison: <q data-testid="inspector-grounded-caption">{photo.groundedCaption}</q>
        </p>
      )}
      {detections ? (
        detections.objects.length > 0 ? (
          <>
            <ul className="flex flex-col gap-0.5 text-sm tabular-nums" aria-label={`Objects found in ${name}`}>
              {detections.objects.map((o, i) => (
                <li key={i} data-testid="detection">
                  {objectText(o)}
                </li>
              ))}
            </ul>
            {photo.captionConfident === false && (
              <p className="text-sm text-slate-700" data-testid="caption-bar">
                {photo.captionHedged
                  ? `None of them scores ${CONFIDENT_SCORE.toFixed(2)} or more, so the caption only guesses ("Maybe …") at the strongest, which scores ${HEDGE_SCORE.toFixed(2)} or more and which the image tower's zero-shot vote over the 80 COCO names did not rule out.`
                  : `None of them scores ${CONFIDENT_SCORE.toFixed(2)} or more, so the caption does not name them.`}
              </p>
            )}
          </>
        ) : (
          <p className="text-sm text-slate-700" data-testid="no-detections">
            No objects found with confidence.
          </p>
        )
      ) : (
        <p className="text-sm text-slate-700" data-testid="no-detections">
          {photo.captionSource === 'image-encoder'
            ? 'The object detector was not available, so this photo was described by the image encoder alone.'
            : 'This photo was shared before photos went through the object detector, so no boxes were kept.'}
        </p>
      )}
    </li>
  );
}

function PhotosSection({ photos }: { photos: readonly PhotoElement[] }) {
  return (
    <section aria-labelledby="inspector-photos">
      <h3 id="inspector-photos" className="mb-1 font-semibold">
        Objects in your photos
      </h3>
      <p className="mb-2 text-sm text-slate-700">The object detector (80 COCO classes) looks at each photo first; the caption is written from what it finds.</p>
      <ol className="flex flex-col gap-3">
        {photos.map((photo, i) => (
          <PhotoObjects key={photo.imageId} photo={photo} index={i} />
        ))}
      </ol>
    </section>
  );
}

function IntentBars({ step, index }: { step: ReplyStep; index: number }) {
  return (
    <ul className="flex flex-col gap-1" aria-label={`Intent probabilities before element ${index + 1}`}>
      {INTENTS.map((intent, i) => {
        const p = step.probabilities[i] ?? 0;
        const chosen = step.intent === intent;
        return (
          <li
            key={intent}
            className="grid grid-cols-[4.5rem_1fr_3.5rem] items-center gap-2"
            data-testid="intent-probability"
            data-intent={intent}
            data-chosen={chosen}
          >
            <span className={chosen ? 'font-bold' : ''}>{intent}</span>
            <span className="h-3 rounded-full bg-slate-200" aria-hidden="true">
              <span
                className={`block h-3 rounded-full ${chosen ? 'bg-blue-700' : 'bg-slate-500'}`}
                style={{ width: `${Math.max(0, Math.min(1, p)) * 100}%` }}
              />
            </span>
            <span className={`text-right tabular-nums ${chosen ? 'font-bold' : ''}`}>
              <span data-testid="probability-value">{p.toFixed(3)}</span>
              {chosen && <span className="sr-only"> (chosen)</span>}
            </span>
          </li>
        );
      })}
    </ul>
  );
}

function CandidateThumbnail({ candidate, poolId }: { candidate: ReplyCandidate; poolId: string }) {
  const url = usePoolImageUrl(poolId, candidate.key ?? '', candidate.url ?? null);
  const alt = candidate.alt ?? candidate.label;
  return url ? (
    <img src={url} alt={alt} loading="lazy" className="h-12 w-12 shrink-0 rounded-md bg-slate-200 object-cover" />
  ) : (
    <span className="flex h-12 w-12 shrink-0 items-center justify-center rounded-md bg-slate-200 text-xs text-slate-700" aria-hidden="true">
      image
    </span>
  );
}

function Candidates({ step, index, poolId }: { step: ReplyStep; index: number; poolId: string }) {
  const emoji = useEmojiText();
  if (step.candidates.length === 0) return null;
  const kind = step.intent === 'image' ? 'image' : 'text';
  return (
    <ol className="flex flex-col gap-1" aria-label={`Top ${step.candidates.length} ${kind} candidates for element ${index + 1}`}>
      {step.candidates.map((c, rank) => (
        <li
          key={`${c.key ?? c.label}-${rank}`}
          data-testid="candidate"
          className={`flex items-center gap-2 rounded-lg px-2 py-1 ${rank === 0 ? 'bg-blue-50 ring-1 ring-blue-300' : ''}`}
        >
          <span className="w-6 shrink-0 text-right tabular-nums text-slate-700">{rank + 1}</span>
          {c.kind === 'poolImage' && <CandidateThumbnail candidate={c} poolId={poolId} />}
          <span className="min-w-0 flex-1 break-words">
            {c.kind === 'poolImage' ? c.label : emoji(c.label)}
            {rank === 0 && (
              <span className="ml-2 inline-block whitespace-nowrap rounded bg-blue-700 px-1.5 py-0.5 text-xs font-semibold text-white">in the reply</span>
            )}
          </span>
          <span className="shrink-0 tabular-nums" data-testid="candidate-score">
            {c.score.toFixed(3)}
          </span>
        </li>
      ))}
    </ol>
  );
}

function Step({ step, index, poolId }: { step: ReplyStep; index: number; poolId: string }) {
  return (
    <li className="flex flex-col gap-2 rounded-xl bg-white p-3 ring-1 ring-slate-200" data-testid="inspector-step">
      <h4 className="font-semibold">
        Step {index + 1}: {step.intent === 'stop' ? 'stop, the reply ends here' : `add ${step.intent === 'text' ? 'a text' : 'an image'}`}
      </h4>
      {step.forcedBy === 'invitation' && (
        <p className="text-sm text-slate-700" data-testid="step-forced">
          The reply's text promises a picture, so an image comes next whatever the intent module said: a reply never promises a picture it does not show.
        </p>
      )}
      {step.forcedBy === 'request' && (
        <p className="text-sm text-slate-700" data-testid="step-forced">
          You asked for a picture, so the reply is a line that goes with one, then the pool's best image for what you asked, whatever the intent module said.
        </p>
      )}
      {step.forcedBy === 'about-the-demo' && (
        <p className="text-sm text-slate-700" data-testid="step-forced">
          The reply is one of the lines written for the demo, not a line from someone else's conversation: you asked about the demo itself, or wrote a line it
          could read nothing in.
        </p>
      )}
      {step.preferred === 'names-photo-object' && (
        <p className="text-sm text-slate-700" data-testid="step-preferred">
          Not the ranker's first: the first of its best candidates that names what the detector found in your photo.
        </p>
      )}
      <IntentBars step={step} index={index} />
      <Candidates step={step} index={index} poolId={poolId} />
    </li>
  );
}

function SummaryItem({ term, children, testId }: { term: string; children: ReactNode; testId: string }) {
  return (
    <div className="flex gap-1.5">
      <dt className="text-slate-700">{term}</dt>
      <dd className="font-medium" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

function ReplyDetails({ reply, photos: allPhotos, fallbackPoolId }: { reply: PoolReplyMeta; photos: readonly PhotoElement[]; fallbackPoolId: string }) {
  const backend = reply.backend;
  // A photo the check called unfit is not shown here either: the chat blurs it, and nothing was detected in it.
  const photos = allPhotos.filter((p) => p.check !== 'unfit');
  return (
    <>
      <dl className="flex flex-wrap gap-x-4 gap-y-1" data-testid="inspector-summary">
        <SummaryItem term="Method" testId="inspector-method">
          {methodName(reply.method)}
        </SummaryItem>
        <SummaryItem term="Intent" testId="inspector-intent-model">
          {reply.intentModel === 'head' ? 'trained head' : 'majority (no trained heads)'}
        </SummaryItem>
        <SummaryItem term="Backend" testId="inspector-backend">
          {reply.provider.toUpperCase()}
          {backend && (
            <span className="font-normal text-slate-700">
              {' '}
              (text {backend.dtypes.text_model}, vision {backend.dtypes.vision_model})
            </span>
          )}
        </SummaryItem>
        <SummaryItem term="Pack" testId="inspector-pack">
          {reply.packName ?? 'not recorded'}
        </SummaryItem>
        {reply.poolName && (
          <SummaryItem term="Pool" testId="inspector-pool">
            {reply.poolName}
          </SummaryItem>
        )}
      </dl>
      {photos.length > 0 && <PhotosSection photos={photos} />}
      {reply.screened ? (
        <section aria-labelledby="inspector-screened" data-testid="inspector-screened">
          <h3 id="inspector-screened" className="mb-1 font-semibold">
            Screened: {screenCategoryLabel(reply.screened)}
          </h3>
          <p className="text-sm text-slate-700">
            Your message was screened before anything was ranked, and the reply is a line written for the demo: no text from the pool and no picture. Only the
            category is kept here, never what was typed.
          </p>
        </section>
      ) : (
        <section aria-labelledby="inspector-steps">
          <h3 id="inspector-steps" className="mb-1 font-semibold">
            How the reply was composed
          </h3>
          <p className="mb-2 text-sm text-slate-700">
            Before each element the intent module predicts text, image or stop (MMDialog eq. 4); the ranker scores the pool and the best unused candidate joins
            the reply.
          </p>
          <ol className="flex flex-col gap-3">
            {reply.steps.map((step, i) => (
              <Step key={i} step={step} index={i} poolId={reply.poolId ?? fallbackPoolId} />
            ))}
          </ol>
        </section>
      )}
      <section aria-labelledby="inspector-timings">
        <h3 id="inspector-timings" className="mb-1 font-semibold">
          Timings (in the worker)
        </h3>
        <table className="w-full tabular-nums">
          <tbody>
            {TIMINGS.map(({ key, label }) => {
              const ms = reply.timings[key];
              if (ms === undefined) return null; // replies saved before a stage existed
              return (
                <tr key={key} data-testid="timing" data-timing={key} className={key === 'totalMs' ? 'border-t border-slate-300 font-semibold' : ''}>
                  <th scope="row" className="py-0.5 text-left font-normal">
                    {label}
                  </th>
                  <td className="w-1/3 px-2" aria-hidden="true">
                    <span
                      className="block h-2 rounded-full bg-slate-500"
                      style={{ width: `${reply.timings.totalMs > 0 ? Math.min(1, ms / reply.timings.totalMs) * 100 : 0}%` }}
                    />
                  </td>
                  <td className="py-0.5 text-right">{ms.toFixed(1)} ms</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>
    </>
  );
}

/** The last reply, taken apart: the objects in the photos it answered, intent probabilities and top-10 candidates per step, timings, backend and pack. */
export function Inspector({ messages, returnFocusTo }: { messages: readonly ChatMessage[]; returnFocusTo: () => HTMLElement | null }) {
  const poolId = useSettingsStore((s) => s.poolId);
  const exchange = lastExchange(messages);
  const video = latestVideo(messages);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    heading.current?.focus();
    return () => returnFocusTo()?.focus();
  }, [returnFocusTo]);

  return (
    <>
      <div className="fixed inset-0 z-30 bg-slate-900/40 lg:hidden" aria-hidden="true" onClick={() => panelActions.setInspectorOpen(false)} />
      <aside
        id="inspector"
        aria-labelledby="inspector-title"
        className="fixed inset-x-0 bottom-0 z-40 flex max-h-[85dvh] flex-col rounded-t-2xl bg-slate-50 shadow-2xl lg:static lg:z-auto lg:max-h-none lg:w-[26rem] lg:shrink-0 lg:rounded-xl lg:shadow-sm lg:ring-1 lg:ring-slate-200 xl:w-[32rem]"
      >
        <header className="flex items-center justify-between gap-2 border-b border-slate-200 px-4 py-2">
          <h2
            id="inspector-title"
            ref={heading}
            tabIndex={-1}
            className="text-lg font-semibold focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600"
          >
            Inspector <span className="text-sm font-normal text-slate-700">last reply</span>
          </h2>
          <button
            type="button"
            onClick={() => panelActions.setInspectorOpen(false)}
            aria-keyshortcuts={`${SHORTCUTS.inspector} Escape`}
            className="rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm hover:bg-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600"
          >
            Close inspector
          </button>
        </header>
        {/* Focusable, so the panel scrolls with the keyboard. */}
        <div
          tabIndex={0}
          className="flex min-h-0 flex-1 flex-col gap-4 overflow-y-auto p-4 focus-visible:outline focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-blue-600"
          data-testid="inspector-body"
        >
          {video && <VideoDetails video={video.video} answer={video.answer} />}
          {video ? null : exchange ? (
            <ReplyDetails reply={exchange.reply} photos={exchange.photos} fallbackPoolId={poolId} />
          ) : (
            <p className="text-slate-700">
              Send a message: the inspector then shows how the reply was made, step by step: the intent probabilities, the ten best candidates with their
              scores, and the time each stage took.
            </p>
          )}
        </div>
      </aside>
    </>
  );
}
