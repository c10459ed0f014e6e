import { errorMessage } from '../../engine/errors';
import type { VideoElement } from '../../shared/conversation';
import { fetchedOnce } from '../../shared/fetchedOnce';
import { modelWorker } from '../../shared/modelWorker';
import { modelFolderRef, readModelsIndex } from '../../shared/modelsIndex';
import { noticeActions } from '../../shared/stores/noticeStore';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import type { AvsdRef, VideoAnalyzed } from '../../protocol/protocol';
import { type DraftVideo, chatActions, useChatStore } from './chatStore';
import { VideoInputError, decodeVideo } from './videoDecoder';

/** models/avsd as /models/index.json lists it, read once (null when there is none or the list cannot be read: videos are then described without speech, and questions get a sentence). */
export const avsd: () => Promise<AvsdRef | null> = fetchedOnce(() =>
  readModelsIndex().then(
    (index) => (index.avsd ? modelFolderRef(index.avsd) : null),
    () => null,
  ),
);

/** Decodes a video into the draft turn (one per turn); resolves to 1 when it could not be used, else 0. */
export async function attachVideo(file: File): Promise<number> {
  if (useChatStore.getState().draftVideo || useChatStore.getState().decodingVideo) {
    noticeActions.notifyAboutConversation('error', 'A message can carry one video. Send this one first, or remove it, then add the next.');
    return 1;
  }
  chatActions.setDecodingVideo(true);
  try {
    // The sound goes ahead to the worker, which loads the video models and looks for speech while the frames are sought.
    const soundId = crypto.randomUUID();
    let soundSent = false;
    const decoded = await decodeVideo(file, {
      onAudio: (audio) => {
        soundSent = true;
        void avsd()
          .then((ref) => modelWorker().call('hearVideo', { soundId, audio, avsd: ref, forceWasm: useSettingsStore.getState().forceWasm }))
          .catch(() => undefined); // analyzeVideo then hears the sound itself
      },
    });
    if (soundSent) decoded.payload.soundId = soundId;
    chatActions.setDraftVideo({
      videoId: crypto.randomUUID(),
      posterId: crypto.randomUUID(),
      sheetId: crypto.randomUUID(),
      name: file.name || 'video',
      file,
      decoded,
    });
    if (!decoded.hasAudio)
      noticeActions.notifyAboutConversation(
        'info',
        `${file.name || 'The video'} has no sound track: questions about its sound will be answered as for a silent video.`,
      );
    return 0;
  } catch (error) {
    noticeActions.notifyAboutConversation(
      'error',
      error instanceof VideoInputError
        ? error.message
        : `${file.name || 'The video'} could not be read (${errorMessage(error)}). Try another video; your conversation is unchanged.`,
    );
    return 1;
  } finally {
    chatActions.setDecodingVideo(false);
  }
}

export function videoElementOf(draft: DraftVideo): VideoElement {
  const { decoded } = draft;
  return {
    kind: 'video',
    videoId: draft.videoId,
    posterId: draft.posterId,
    sheetId: draft.sheetId,
    name: draft.name,
    width: decoded.width,
    height: decoded.height,
    seconds: decoded.seconds,
    hasAudio: decoded.hasAudio,
  };
}

/** The Blobs a video turn stores by id: the file, its poster frame and its frame sheet. */
export function videoBlobs(draft: DraftVideo): { imageId: string; blob: Blob }[] {
  return [
    { imageId: draft.videoId, blob: draft.file },
    { imageId: draft.posterId, blob: draft.decoded.poster },
    { imageId: draft.sheetId, blob: draft.decoded.sheet },
  ];
}

/** The Cancel button of the video being watched. */
export function cancelWatching(): void {
  useChatStore.getState().watchingVideo?.abort();
}

/**
 * Watches a shared video in the worker; returns the element with its description and analysis. Its
 * Cancel rejects with a cancelled call (isCancelledCall); the video and the turn stay as they are.
 */
export async function watchVideo(draft: DraftVideo): Promise<VideoElement> {
  const abort = new AbortController();
  const done = chatActions.watchingVideo(abort);
  let analyzed: VideoAnalyzed;
  try {
    analyzed = await modelWorker().call(
      'analyzeVideo',
      { video: draft.decoded.payload, avsd: await avsd(), forceWasm: useSettingsStore.getState().forceWasm },
      { signal: abort.signal },
    );
  } finally {
    done();
  }
  for (const problem of analyzed.problems) noticeActions.notifyAboutConversation('info', problem);
  const { problems: _, timings: __, ...analysis } = analyzed;
  return { ...videoElementOf(draft), description: analyzed.description, analysis };
}
