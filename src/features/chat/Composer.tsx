import { type KeyboardEvent, useRef } from 'react';
import { attachFiles, sendTurn } from './chatController';
import { preparePhotoPath } from './warmUp';
import { type DraftImage, type DraftVideo, chatActions, useChatStore } from './chatStore';
import { VIDEO_ACCEPT } from './videoDecoder';
import { CameraButton } from './CameraDialog';
import { useImageUrl } from '../../shared/ui/useImageUrl';

export const ACCEPT = `image/jpeg,image/png,image/webp,image/gif,image/bmp,${VIDEO_ACCEPT}`;

function DraftThumbnail({ image }: { image: DraftImage }) {
  const url = useImageUrl(image.imageId, image.blob);
  return (
    <li className="relative">
      {url && <img src={url} alt={`Photo to send: ${image.name}`} className="h-16 w-16 rounded-md border border-slate-300 object-cover" />}
      <button
        type="button"
        onClick={() => chatActions.removeDraftImage(image.imageId)}
        aria-label={`Remove ${image.name}`}
        className="absolute -right-2 -top-2 h-6 w-6 rounded-full bg-slate-800 text-xs text-white focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
      >
        ×
      </button>
    </li>
  );
}

function DraftVideoThumbnail({ video }: { video: DraftVideo }) {
  const url = useImageUrl(video.posterId, video.decoded.poster);
  return (
    <li className="relative">
      {url && (
        <img
          src={url}
          alt={`Video to send: ${video.name}, ${video.decoded.seconds.toFixed(1)} s`}
          className="h-16 w-24 rounded-md border border-slate-300 object-cover"
        />
      )}
      <span className="absolute bottom-0.5 left-0.5 rounded bg-slate-900/70 px-1 text-[10px] text-white" aria-hidden="true">
        ▶ {video.decoded.seconds.toFixed(1)} s
      </span>
      <button
        type="button"
        onClick={() => chatActions.setDraftVideo(null)}
        aria-label={`Remove ${video.name}`}
        className="absolute -right-2 -top-2 h-6 w-6 rounded-full bg-slate-800 text-xs text-white focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
      >
        ×
      </button>
    </li>
  );
}

/** `compact` (the visitor view) starts the message box one line high and trims its margins, leaving the chat that room. */
export function Composer({ compact = false }: { compact?: boolean }) {
  const text = useChatStore((s) => s.draftText);
  const drafts = useChatStore((s) => s.draftImages);
  const draftVideo = useChatStore((s) => s.draftVideo);
  const decodingVideo = useChatStore((s) => s.decodingVideo);
  const checking = useChatStore((s) => s.checkingImages);
  const sendingWhenChecked = useChatStore((s) => s.sendingWhenChecked);
  const awaitingReply = useChatStore((s) => s.awaitingReply);
  const fileInput = useRef<HTMLInputElement>(null);

  const submit = async () => {
    const sending = text;
    if ((await sendTurn(sending)) && useChatStore.getState().draftText === sending) chatActions.setDraftText('');
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  };

  return (
    <form
      className={`border-t border-slate-200 bg-white ${compact ? 'px-3 py-2' : 'p-3'}`}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {(drafts.length > 0 || checking > 0) && (
        <ul className="mb-2 flex flex-wrap gap-3" aria-label="Photos to send">
          {drafts.map((d) => (
            <DraftThumbnail key={d.imageId} image={d} />
          ))}
          {checking > 0 && (
            <li className="self-center text-sm text-slate-600" role="status">
              {sendingWhenChecked ? 'Checking photo… it goes with your message in a moment' : 'Checking photo…'}
            </li>
          )}
        </ul>
      )}
      {(draftVideo || decodingVideo) && (
        <ul className="mb-2 flex flex-wrap gap-3" aria-label="Video to send">
          {draftVideo && <DraftVideoThumbnail video={draftVideo} />}
          {decodingVideo && (
            <li className="self-center text-sm text-slate-600" role="status">
              Opening the video… (sampling its frames and sound)
            </li>
          )}
        </ul>
      )}
      {/* On a phone the attach buttons take a row of their own below, so the message box keeps most of the width. */}
      <div className="flex flex-wrap items-end gap-2 sm:flex-nowrap">
        <input
          ref={fileInput}
          id="photo-input"
          type="file"
          accept={ACCEPT}
          multiple
          className="hidden"
          tabIndex={-1}
          aria-hidden="true"
          onChange={(e) => {
            void attachFiles(Array.from(e.target.files ?? []));
            e.target.value = '';
          }}
        />
        <div className="order-last flex basis-full gap-2 sm:order-none sm:basis-auto">
          <button
            type="button"
            onClick={() => {
              preparePhotoPath();
              fileInput.current?.click();
            }}
            className="rounded-lg border border-slate-300 px-3 py-2 text-sm text-slate-800 hover:bg-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600"
          >
            Add photos or video
          </button>
          <CameraButton />
        </div>
        <label htmlFor="message-input" className="sr-only">
          Message
        </label>
        <textarea
          id="message-input"
          rows={compact ? 1 : 2}
          value={text}
          onChange={(e) => chatActions.setDraftText(e.target.value)}
          onKeyDown={onKeyDown}
          placeholder="Type a message"
          aria-describedby="composer-hint"
          className="min-h-[2.75rem] min-w-0 flex-1 resize-y rounded-lg border border-slate-300 px-3 py-2 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600"
        />
        <button
          type="submit"
          disabled={awaitingReply || sendingWhenChecked}
          className="rounded-lg bg-blue-700 px-4 py-2 font-medium text-white hover:bg-blue-800 disabled:bg-slate-400 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
        >
          Send
        </button>
      </div>
      {/* A phone's keyboard has no Shift+Enter and nothing to drop: the hint is for screens with a keyboard. */}
      <p id="composer-hint" className="mt-1 hidden text-xs text-slate-600 sm:block">
        Enter sends · Shift+Enter for a new line · drop or paste photos or a video anywhere
      </p>
    </form>
  );
}
