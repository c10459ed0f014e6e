import { useEffect, useRef, useState } from 'react';
import { methodName } from '../../engine/response/methods';
import { avsdModelName } from '../../engine/video/avsdModels';
import { screenCategoryLabel, screenVisitorMessage } from '../../engine/safety/visitorScreen';
import type { PhotoCheckVerdict } from '../../engine/perception/photoCheck';
import type { ChatMessage, MessageElement, ReplyMeta } from '../../shared/conversation';
import { PoolImage, keepAtEnd } from '../../shared/ui/PoolImage';
import { useEmojiText } from '../../shared/ui/useEmojiText';
import { useImageUrl, useVideoUrl } from '../../shared/ui/useImageUrl';
import { useChatStore } from './chatStore';
import { cancelWatching } from './videoTurns';
import { ReplyReference } from './ReplyReference';
import { StartScreen } from './StartScreen';
import { SHOWN_MESSAGES, visibleMessages } from './messageWindow';

/**
 * How tall an image in a message may be. The visitor view caps it by the screen's height, so that at
 * 1280x720 in kiosk type three whole exchanges fit, a photo and an image reply among them, with room
 * for a reply of two lines (the pool's human texts run to 280 characters).
 */
const IMAGE_HEIGHT = {
  presenter: { photo: 'max-h-48', pool: 'max-h-40' },
  visitor: { photo: 'max-h-[min(8rem,14svh)]', pool: 'max-h-[min(8rem,14svh)]' },
} as const;

/**
 * Why a shared photo or video is not shown as it is (the photo check, perception/photoCheck.ts), or
 * null. Kiosk mode shows one only once the check passed it: a public screen never shows one unchecked.
 */
function withheldBy(check: PhotoCheckVerdict | undefined, kiosk: boolean, awaitingReply: boolean): 'blurred' | 'hidden' | 'checking' | 'unchecked' | null {
  if (check === 'unfit') return kiosk ? 'hidden' : 'blurred';
  if (!kiosk || check === 'fit') return null;
  return check === undefined && awaitingReply ? 'checking' : 'unchecked';
}

const WITHHELD_TEXT = {
  photo: {
    hidden: 'Photo not shown: it may not be suitable for a public screen.',
    checking: 'Checking the photo…',
    unchecked: 'Photo not shown: it could not be checked.',
  },
  video: {
    hidden: 'Video not shown: it may not be suitable for a public screen.',
    checking: 'Checking the video…',
    unchecked: 'Video not shown: it could not be checked.',
  },
} as const;

/** The grey box that stands where a withheld photo or video would be. */
function Withheld({ kind, withheld }: { kind: 'photo' | 'video'; withheld: 'hidden' | 'checking' | 'unchecked' }) {
  return (
    <div
      className="flex h-24 w-40 items-center justify-center rounded-lg bg-slate-200 p-2 text-center text-xs text-slate-700"
      data-testid={`${kind}-withheld`}
      data-withheld={withheld}
    >
      {WITHHELD_TEXT[kind][withheld]}
    </div>
  );
}

/** The line above a blurred photo or video, with the button that shows it. */
function BlurredNote({ kind, show }: { kind: 'photo' | 'video'; show: () => void }) {
  return (
    <div className="flex items-center gap-2 text-xs" data-testid={`${kind}-blurred`}>
      <span>Blurred: the photo check says it may not be suitable to show.</span>
      <button type="button" className="rounded border border-current px-1.5 py-0.5" onClick={show}>
        Show anyway
      </button>
    </div>
  );
}

function MessageImage({ element, heightClass }: { element: Extract<MessageElement, { kind: 'image' }>; heightClass: string }) {
  const url = useImageUrl(element.imageId);
  const kiosk = useChatStore((s) => s.kiosk);
  const awaitingReply = useChatStore((s) => s.awaitingReply);
  const [shownAnyway, setShownAnyway] = useState(false);
  const withheld = withheldBy(element.check, kiosk, awaitingReply);
  if (withheld && withheld !== 'blurred') return <Withheld kind="photo" withheld={withheld} />;
  const blurred = withheld === 'blurred' && !shownAnyway;
  return (
    <figure className="flex flex-col gap-1">
      {blurred && <BlurredNote kind="photo" show={() => setShownAnyway(true)} />}
      {url ? (
        <img
          src={url}
          onLoad={keepAtEnd}
          alt={element.caption ? `Shared photo: ${element.caption}` : `Shared photo: ${element.name}`}
          width={element.width}
          height={element.height}
          className={`${heightClass} w-auto max-w-full rounded-lg border border-slate-200 object-contain ${blurred ? 'blur-2xl' : ''}`}
          data-blurred={blurred ? 'true' : undefined}
        />
      ) : (
        <div className="flex h-24 w-32 items-center justify-center rounded-lg bg-slate-200 text-xs text-slate-600">{element.name}</div>
      )}
      {element.caption && (
        <figcaption
          className={`text-xs opacity-90 ${element.captionHedged ? 'italic' : ''}`}
          data-testid="photo-caption"
          data-hedged={element.captionHedged ? 'true' : undefined}
          title={element.captionHedged ? 'A guess: the object detector is not sure' : undefined}
        >
          {element.caption}
        </figcaption>
      )}
    </figure>
  );
}

/** A shared video: its poster frame with a play control; playing swaps in the stored file. */
function MessageVideo({ element, heightClass }: { element: Extract<MessageElement, { kind: 'video' }>; heightClass: string }) {
  const [playing, setPlaying] = useState(false);
  const poster = useImageUrl(element.posterId);
  const file = useVideoUrl(playing ? element.videoId : null);
  const kiosk = useChatStore((s) => s.kiosk);
  const awaitingReply = useChatStore((s) => s.awaitingReply);
  const [shownAnyway, setShownAnyway] = useState(false);
  const withheld = withheldBy(element.analysis?.check, kiosk, awaitingReply && element.analysis === undefined);
  if (withheld && withheld !== 'blurred') return <Withheld kind="video" withheld={withheld} />;
  const blurred = withheld === 'blurred' && !shownAnyway;
  const label = `Shared video, ${element.seconds.toFixed(element.seconds < 10 ? 1 : 0)} s${element.description ? `: ${element.description}` : `: ${element.name}`}`;
  return (
    <figure className="flex flex-col gap-1" data-testid="shared-video">
      {blurred && <BlurredNote kind="video" show={() => setShownAnyway(true)} />}
      {playing && file ? (
        <video
          src={file}
          controls
          autoPlay
          aria-label={label}
          width={element.width}
          height={element.height}
          className={`${heightClass} w-auto max-w-full rounded-lg border border-slate-200`}
        />
      ) : (
        // The button hugs the poster (not the caption's width), so the play mark and the length sit on the picture.
        <button
          type="button"
          onClick={() => setPlaying(true)}
          // A blurred video plays only after "Show anyway".
          disabled={blurred}
          aria-label={`Play: ${label}`}
          className="relative self-start rounded-lg focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
        >
          {poster ? (
            <img
              src={poster}
              onLoad={keepAtEnd}
              alt=""
              width={element.width}
              height={element.height}
              className={`${heightClass} block w-auto max-w-full rounded-lg border border-slate-200 object-contain ${blurred ? 'blur-2xl' : ''}`}
              data-blurred={blurred ? 'true' : undefined}
            />
          ) : (
            <div className="flex h-24 w-32 items-center justify-center rounded-lg bg-slate-200 text-xs text-slate-600">{element.name}</div>
          )}
          <span
            className="absolute inset-0 m-auto flex h-10 w-10 items-center justify-center rounded-full bg-slate-900/70 text-lg text-white"
            aria-hidden="true"
          >
            ▶
          </span>
          <span
            className="absolute bottom-1 right-1 whitespace-nowrap rounded bg-slate-900/70 px-1 text-xs text-white"
            aria-hidden="true"
            data-testid="video-length"
          >
            {element.seconds.toFixed(element.seconds < 10 ? 1 : 0)} s{element.hasAudio ? '' : ' · no sound'}
          </span>
        </button>
      )}
      <VideoDescription
        description={element.analysis?.check === 'unfit' ? 'Not watched: the photo check says it may not be suitable to show.' : element.description}
      />
    </figure>
  );
}

/** What the worker saw in a video, or that it is being watched (with Cancel), or that watching was stopped. */
function VideoDescription({ description }: { description: string | undefined }) {
  const awaitingReply = useChatStore((s) => s.awaitingReply);
  if (description !== undefined)
    return (
      <figcaption className="text-xs opacity-90" data-testid="video-description">
        {description}
      </figcaption>
    );
  if (!awaitingReply)
    return (
      <figcaption className="text-xs opacity-90" data-testid="video-description">
        Not watched. Share it again to have it watched.
      </figcaption>
    );
  return (
    <>
      <figcaption className="text-xs opacity-90" data-testid="video-description">
        Watching the video…
      </figcaption>
      <button type="button" onClick={cancelWatching} className="self-start rounded border border-current px-1.5 py-0.5 text-xs">
        Cancel
      </button>
    </>
  );
}

function Message({ message, presenter }: { message: ChatMessage; presenter: boolean }) {
  const mine = message.role === 'user';
  const emoji = useEmojiText();
  const heights = IMAGE_HEIGHT[presenter ? 'presenter' : 'visitor'];
  const kiosk = useChatStore((s) => s.kiosk);
  const render = (element: MessageElement, i: number) =>
    element.kind === 'text' && mine && kiosk && screenVisitorMessage([element.text]).category !== null ? (
      // A public screen does not go on showing what a visitor typed that was screened (issue 39); the reply still answers it.
      <p key={i} className="text-xs italic opacity-90" data-testid="message-withheld">
        Message not shown on this public screen.
      </p>
    ) : element.kind === 'text' ? (
      <p key={i} className="whitespace-pre-wrap break-words" data-testid={mine ? undefined : 'reply-text'}>
        {emoji(element.text)}
      </p>
    ) : element.kind === 'image' ? (
      <MessageImage key={element.imageId} element={element} heightClass={heights.photo} />
    ) : element.kind === 'video' ? (
      <MessageVideo key={element.videoId} element={element} heightClass={heights.photo} />
    ) : (
      <PoolImage key={`${element.key}-${i}`} element={element} heightClass={heights.pool} />
    );
  if (!presenter) {
    // The visitor view puts a message's pictures beside its words where the bubble is wide enough,
    // so a photo costs the chat its own height only, not that plus the lines of text.
    const texts = message.elements.flatMap((e, i) => (e.kind === 'text' ? [render(e, i)] : []));
    const media = message.elements.flatMap((e, i) => (e.kind === 'text' ? [] : [render(e, i)]));
    const groups = [
      media.length > 0 && (
        <div key="media" className="flex flex-wrap items-center gap-2">
          {media}
        </div>
      ),
      texts.length > 0 && (
        <div key="texts" className="flex min-w-0 flex-col gap-1">
          {texts}
        </div>
      ),
    ];
    if (message.elements[0]?.kind === 'text') groups.reverse();
    if (message.reply?.screened) groups.push(<WrittenForTheDemo key="written" />);
    return (
      <li className={`flex ${mine ? 'justify-end' : 'justify-start'}`} aria-label={mine ? 'You said' : 'The system replied'}>
        <div
          className={`flex max-w-[80%] flex-wrap items-center gap-x-3 gap-y-1.5 rounded-2xl px-4 py-1.5 shadow-sm ${mine ? 'bg-blue-700 text-white' : 'bg-white text-slate-900'}`}
        >
          {groups}
        </div>
      </li>
    );
  }
  return (
    <li className={`flex ${mine ? 'justify-end' : 'justify-start'}`} aria-label={mine ? 'You said' : 'The system replied'}>
      <div className={`flex max-w-[80%] flex-col gap-2 rounded-2xl px-4 py-2 shadow-sm ${mine ? 'bg-blue-700 text-white' : 'bg-white text-slate-900'}`}>
        {message.elements.map(render)}
        {message.reply && <ReplyMetaLine reply={message.reply} />}
        {/* An answer about a video has nothing of the pool to compare with what the visitor would have said. */}
        {!mine && (message.reply?.video?.answeredFrom ?? 'watched') === 'watched' && !message.reply?.screened && <ReplyReference message={message} />}
      </div>
    </li>
  );
}

/** The presenter's developer line under a reply: how it was made and how long it took. */
function ReplyMetaLine({ reply }: { reply: ReplyMeta }) {
  if (reply.video) {
    const video = reply.video;
    return (
      <p className="text-xs text-slate-600" data-testid="reply-meta">
        {video.answeredFrom === 'watched' ? 'Watched your video' : 'Answered about your video'} ·{' '}
        {video.answeredFrom === 'watched'
          ? 'what was seen and heard in it'
          : video.answeredFrom === 'frames'
            ? 'from what the object detector found in its frames'
            : `best of ${video.candidateCount} candidates ranked by the ${avsdModelName(video.model)} late-fusion model`}{' '}
        · {reply.totalMs.toFixed(0)} ms
      </p>
    );
  }
  if (reply.screened)
    return (
      <p className="text-xs text-slate-600" data-testid="reply-meta">
        <WrittenForTheDemo /> · your message was screened ({screenCategoryLabel(reply.screened)}), so nothing was ranked · {reply.timings.totalMs.toFixed(0)} ms
      </p>
    );
  // Replies saved by an older version carry no timings: no meta line.
  if (!reply.timings) return null;
  return (
    <p className="text-xs text-slate-600" data-testid="reply-meta">
      {methodName(reply.method)} · intent {reply.intentModel === 'head' ? 'trained' : 'majority'} · CLIP cosine to your turn {reply.relevance.toFixed(3)} (not
      MM-Relevance) · {reply.timings.totalMs.toFixed(0)} ms on {reply.provider.toUpperCase()}
    </p>
  );
}

/** The credit of a reply to a screened message: a line written for this demo, not someone's words from the pool. */
function WrittenForTheDemo() {
  return (
    <span className="text-xs text-slate-600" data-testid="reply-written">
      Written for this demo
    </span>
  );
}

/** The conversation; `presenter` adds each reply's developer line and the visitor's reference answer. */
export function MessageList({ presenter }: { presenter: boolean }) {
  const allMessages = useChatStore((s) => s.messages);
  const hydrated = useChatStore((s) => s.hydrated);
  const awaitingReply = useChatStore((s) => s.awaitingReply);
  // Counted from the end, so the window follows the conversation as it grows.
  const [shown, setShown] = useState(SHOWN_MESSAGES);
  const { hidden, visible: messages } = visibleMessages(allMessages, shown);
  const end = useRef<HTMLLIElement>(null);
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' });
  }, [allMessages.length, awaitingReply]);
  return (
    // Focusable, so a long conversation scrolls with the keyboard.
    <ol
      tabIndex={0}
      className={`flex flex-1 flex-col overflow-y-auto ${presenter ? 'gap-3 p-4' : 'gap-2 px-4 py-2'} focus-visible:outline focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-blue-600`}
      aria-label="Conversation"
      aria-live="polite"
    >
      {hidden > 0 && (
        <li className="self-center">
          <button
            type="button"
            onClick={() => setShown((n) => n + SHOWN_MESSAGES)}
            className="rounded-lg border border-slate-300 bg-white px-3 py-1 text-sm text-slate-800 hover:bg-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600"
          >
            Show {Math.min(hidden, SHOWN_MESSAGES)} earlier messages ({hidden} not shown)
          </button>
        </li>
      )}
      {hydrated && allMessages.length === 0 && (
        <li className="m-auto">
          <StartScreen />
        </li>
      )}
      {messages.map((m) => (
        <Message key={m.id} message={m} presenter={presenter} />
      ))}
      {awaitingReply && (
        // The status role on the item itself would hide that it is a list item (axe: a list holds only items).
        <li className="text-sm text-slate-600">
          <span role="status">Thinking…</span>
        </li>
      )}
      <li ref={end} aria-hidden="true" />
    </ol>
  );
}
