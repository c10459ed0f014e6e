import { errorMessage } from '../../engine/errors';
import { loadImage, loadVideo } from '../../persistence/conversationDb';
import type { ChatMessage, VideoElement } from '../../shared/conversation';
import { modelWorker } from '../../shared/modelWorker';
import { useModelStore } from '../../shared/stores/modelStore';
import { noticeActions } from '../../shared/stores/noticeStore';
import { useSettingsStore } from '../../shared/stores/settingsStore';
import { isCancelledCall } from '../../protocol/client';
import type { HistoryElement, HistoryTurn } from '../../protocol/protocol';
import { type DraftImage, chatActions, useChatStore } from './chatStore';
import { currentConversationId, inKioskConversation, removeStored, restorePrevious, saveChanged, startFresh } from './chatPersistence';
import { decodeVideo, isVideoLike } from './videoDecoder';
import { turnVideoOf } from './turnVideo';
import { attachVideo, avsd, videoBlobs, videoElementOf, watchVideo } from './videoTurns';

const MAX_IMAGES_PER_TURN = 8;
function newId(): string {
  return crypto.randomUUID();
}

/** Checks each file in the worker (type, size, decodability) before it joins the draft. */
export function attachImages(files: readonly File[]): Promise<number> {
  return track(checkImages(files));
}

function track(checking: Promise<number>): Promise<number> {
  chatActions.trackCheck(checking);
  return checking;
}

/** Photos and videos from the picker, a drop or a paste: photos are checked in the worker, a video is decoded in the page. */
export async function attachFiles(files: readonly File[]): Promise<number> {
  const videos = files.filter(isVideoLike);
  const photos = files.filter((f) => !isVideoLike(f));
  const checks: Promise<number>[] = [];
  if (photos.length > 0) checks.push(attachImages(photos));
  if (videos.length > 1)
    noticeActions.notifyAboutConversation('error', `A message can carry one video; ${videos[0]!.name} was added, the other ${videos.length - 1} were not.`);
  if (videos.length > 0) checks.push(track(attachVideo(videos[0]!)));
  return (await Promise.all(checks)).reduce((a, b) => a + b, 0);
}

async function checkImages(files: readonly File[]): Promise<number> {
  let failed = 0;
  const added: DraftImage[] = [];
  for (const file of files) {
    if (useChatStore.getState().draftImages.length >= MAX_IMAGES_PER_TURN) {
      noticeActions.notifyAboutConversation('error', `A message can carry up to ${MAX_IMAGES_PER_TURN} photos. Send these first, then add more.`);
      failed++;
      break;
    }
    chatActions.setChecking(1);
    try {
      const checked = await modelWorker().call('checkImage', { image: { name: file.name, blob: file } });
      // Kept as the type its bytes prove, never the type the file claimed (a "photo" sent as text/html).
      const blob = file.slice(0, file.size, `image/${checked.format}`);
      const draft: DraftImage = { imageId: newId(), name: file.name || 'pasted image', blob, width: checked.width, height: checked.height };
      chatActions.addDraftImage(draft);
      added.push(draft);
    } catch (error) {
      failed++;
      noticeActions.notifyAboutConversation('error', errorMessage(error));
    } finally {
      chatActions.setChecking(-1);
    }
  }
  prepareDraftPhotos(added);
  return failed;
}

/**
 * Asks the worker to check and analyse photos now on the draft, while the visitor types or reaches for
 * Send, so that their turn finds that done. After all of a pick's files are checked, so their thumbnails
 * do not wait behind it. Nobody waits for it: a failure is done again, and reported, by the turn.
 */
function prepareDraftPhotos(photos: readonly DraftImage[]): void {
  if (photos.length === 0 || useModelStore.getState().phase !== 'ready') return;
  for (const photo of photos) {
    modelWorker()
      .call('preparePhoto', { imageId: photo.imageId, image: { name: photo.name, blob: photo.blob } })
      .catch(() => undefined);
  }
}

/** Waits until no photo is being checked (one added meanwhile is waited for too); returns how many could not be used. */
async function photosChecked(): Promise<number> {
  let failed = 0;
  for (let pending = useChatStore.getState().pendingChecks; pending.size > 0; pending = useChatStore.getState().pendingChecks) {
    for (const count of await Promise.all([...pending])) failed += count;
  }
  return failed;
}

/** Sends the composer's text and photos as one turn; returns false when there was nothing to send. */
export async function sendTurn(rawText: string): Promise<boolean> {
  if (useChatStore.getState().sendingWhenChecked) return false;
  if (useChatStore.getState().pendingChecks.size > 0) {
    // A photo still being checked goes with this text, never after it.
    chatActions.setSendingWhenChecked(true);
    let failed: number;
    try {
      failed = await photosChecked();
    } finally {
      chatActions.setSendingWhenChecked(false);
    }
    if (failed > 0) {
      noticeActions.notifyAboutConversation(
        'error',
        `${failed === 1 ? 'A photo or video' : `${failed} photos or videos`} could not be added, so nothing was sent. Your message is still in the box: send it again, or add another file first.`,
      );
      return false;
    }
  }
  const text = rawText.trim();
  const { draftImages, draftVideo, awaitingReply, messages, hydrated } = useChatStore.getState();
  if (text === '' && draftImages.length === 0 && !draftVideo) {
    noticeActions.notifyAboutConversation('error', 'The message is empty. Type something or add a photo, then send.');
    return false;
  }
  if (awaitingReply || !hydrated) return false;
  const model = useModelStore.getState();
  if (model.phase !== 'ready') {
    // A model that failed (a damaged pack, a worker past its restarts) will not become Ready by waiting: its own sentence says what to do.
    noticeActions.notifyAboutConversation(
      'error',
      model.phase === 'error'
        ? `No reply can be made now: ${model.error ?? 'the model did not load.'} Your message is still in the box.`
        : 'The model is not ready yet. Wait for the status to say "Ready", then send again; your message is still in the box.',
    );
    return false;
  }
  const userMessage: ChatMessage = {
    id: newId(),
    role: 'user',
    createdAt: Date.now(),
    elements: [
      ...draftImages.map((d) => ({ kind: 'image' as const, imageId: d.imageId, name: d.name, width: d.width, height: d.height })),
      ...(draftVideo ? [videoElementOf(draftVideo)] : []),
      ...(text ? [{ kind: 'text' as const, text }] : []),
    ],
  };
  const epoch = useChatStore.getState().conversationEpoch;
  const conversation = currentConversationId();
  withdrawUndoOffer();
  chatActions.appendMessage(userMessage);
  chatActions.clearDraftImages();
  chatActions.setDraftVideo(null);
  chatActions.setAwaitingReply(true);
  void saveChanged([userMessage], [...draftImages, ...(draftVideo ? videoBlobs(draftVideo) : [])], conversation);
  await whileAnswering(userMessage.id, () =>
    replyToTurn(userMessage, { text, images: draftImages, watch: draftVideo ? () => watchVideo(draftVideo) : null }, messages, conversation, epoch),
  );
  return true;
}

/** What a turn's reply is made from: its text, its photos' Blobs, and how to watch its video (null without one). */
interface TurnInputs {
  text: string;
  images: readonly { imageId: string; name: string; blob: Blob }[];
  watch: (() => Promise<VideoElement>) | null;
}

/**
 * Holds a lock named after the turn while it is answered, so that another tab (or this one after a
 * reload) can tell a turn being answered from one a reload interrupted. Locks die with the page.
 */
async function whileAnswering(turnId: string, answer: () => Promise<void>): Promise<void> {
  markAnswering(turnId);
  try {
    if (typeof navigator === 'undefined' || !navigator.locks) await answer();
    else await navigator.locks.request(turnLockName(turnId), answer);
  } finally {
    if (answeringMark() === turnId) markAnswering(null);
  }
}
const turnLockName = (turnId: string) => `mmdialog-answering:${turnId}`;

/**
 * The turn this tab is answering, kept in its sessionStorage: after a reload only that turn is
 * answered again, never one another tab sent or one whose reply failed long ago.
 */
const ANSWERING_KEY = 'mmdialog-answering-turn';
function markAnswering(turnId: string | null): void {
  try {
    if (turnId === null) sessionStorage.removeItem(ANSWERING_KEY);
    else sessionStorage.setItem(ANSWERING_KEY, turnId);
  } catch {
    // No sessionStorage (disabled, or a test without a page): nothing is resumed after a reload.
  }
}
function answeringMark(): string | null {
  try {
    return sessionStorage.getItem(ANSWERING_KEY);
  } catch {
    return null;
  }
}

/**
 * Answers a turn already on screen and queued for saving: watches its video first, if it has one,
 * then replies, about the video when the turn is about one. `earlier` is the conversation before the turn.
 */
async function replyToTurn(
  userMessage: ChatMessage,
  { text, images, watch }: TurnInputs,
  earlier: readonly ChatMessage[],
  conversation: string | null,
  epoch: number,
): Promise<void> {
  const stillHere = () => epoch === useChatStore.getState().conversationEpoch && currentConversationId() === conversation;
  try {
    let watched: VideoElement | null = null;
    if (watch) {
      watched = await watch();
      if (stillHere()) chatActions.updateVideo(userMessage.id, watched);
      // Saved as soon as it is watched, so a reload now does not watch it again.
      const updated = (stillHere() ? useChatStore.getState().messages.find((m) => m.id === userMessage.id) : undefined) ?? {
        ...userMessage,
        elements: userMessage.elements.map((e) => (e.kind === 'video' ? watched! : e)),
      };
      void saveChanged([updated], [], conversation);
    }
    // A turn about a video is a reply like any other: the worker's reply session answers it (engine/video/videoTurn.ts).
    const video = turnVideoOf({ watched, photos: images.length }, earlier);
    const history = await historyOf(earlier);
    const reply = await modelWorker().call('reply', {
      history,
      texts: text ? [text] : [],
      images: images.map((d) => ({ name: d.name, blob: d.blob, imageId: d.imageId })),
      method: useSettingsStore.getState().method,
      strict: useSettingsStore.getState().boothStrict || inKioskConversation(),
      ...(video ? { video: { turn: video, avsd: await avsd(), forceWasm: useSettingsStore.getState().forceWasm } } : {}),
    });
    const poolId = useSettingsStore.getState().poolId;
    const assistantMessage: ChatMessage = {
      id: newId(),
      role: 'assistant',
      createdAt: Date.now(),
      elements: reply.elements.map((e) =>
        e.kind === 'text' ? { kind: 'text' as const, text: e.text } : { kind: 'poolImage' as const, key: e.key, alt: e.alt, url: e.url, poolId },
      ),
      reply: reply.video
        ? { video: reply.video, totalMs: reply.timings.totalMs, provider: reply.backend.provider, packName: activePackName() }
        : {
            method: reply.method,
            intentModel: reply.intentModel,
            relevance: reply.relevance,
            steps: reply.steps,
            timings: reply.timings,
            provider: reply.backend.provider,
            backend: reply.backend,
            packName: activePackName(),
            poolId,
            poolName: useModelStore.getState().pool?.name,
            ...(reply.screened ? { screened: reply.screened } : {}),
          },
    };
    // A reply to a conversation since cleared is not shown, but stored with its turn, so Undo brings both back.
    if (!stillHere()) {
      void saveChanged([assistantMessage], [], conversation);
      return;
    }
    chatActions.setCaptions(userMessage.id, reply.captions);
    chatActions.setPhotoChecks(userMessage.id, reply.photoChecks ?? []);
    chatActions.appendMessage(assistantMessage);
    const captioned = useChatStore.getState().messages.find((m) => m.id === userMessage.id) ?? userMessage;
    void saveChanged([captioned, assistantMessage], [], conversation);
  } catch (error) {
    // Cancel (watching a video) is what the person asked for: said quietly, and the turn stays as sent.
    if (isCancelledCall(error)) noticeActions.notifyAboutConversation('info', 'Watching the video stopped, as asked. Your message and the video are kept.');
    else noticeActions.notifyAboutConversation('error', `No reply this time: ${errorMessage(error)}`);
  } finally {
    chatActions.setAwaitingReply(false);
  }
}

/**
 * The person's last turn, when a reload came before its reply: the turn is stored (it is saved as it
 * is sent) but nothing answers it. Answered once per page, when the conversation and the model are
 * both ready, unless another tab holds the turn's lock (it is answering it now).
 */
export function answerInterruptedTurnWhenReady(): () => void {
  let checked = false;
  const check = () => {
    if (checked || !useChatStore.getState().hydrated || useModelStore.getState().phase !== 'ready') return;
    checked = true;
    stop();
    void answerInterruptedTurn();
  };
  const unsubscribes = [useChatStore.subscribe(check), useModelStore.subscribe(check)];
  const stop = () => unsubscribes.forEach((u) => u());
  check();
  return stop;
}

/** The last message, when it is the person's and has no reply after it. */
function unansweredTurn(messages: readonly ChatMessage[]): ChatMessage | null {
  const last = messages[messages.length - 1];
  return last?.role === 'user' ? last : null;
}

async function answerInterruptedTurn(): Promise<void> {
  const turn = unansweredTurn(useChatStore.getState().messages);
  if (!turn || useChatStore.getState().awaitingReply || answeringMark() !== turn.id) return;
  const answer = async () => {
    const { messages, awaitingReply } = useChatStore.getState();
    if (awaitingReply || unansweredTurn(messages)?.id !== turn.id) return;
    chatActions.setAwaitingReply(true);
    const epoch = useChatStore.getState().conversationEpoch;
    const conversation = currentConversationId();
    let inputs: TurnInputs;
    try {
      inputs = await storedInputsOf(turn);
    } catch (error) {
      chatActions.setAwaitingReply(false);
      markAnswering(null);
      noticeActions.notifyAboutConversation(
        'error',
        `Your last turn was not answered before the page reloaded, and it cannot be answered now: ${errorMessage(error)}`,
      );
      return;
    }
    const watching = inputs.watch && !turn.elements.some((e) => e.kind === 'video' && e.analysis);
    noticeActions.notifyAboutConversation(
      'info',
      `The page was reloaded before your last turn was answered, so it is answered now${watching ? ': the video is watched again' : ''}.`,
    );
    // The mark stays until the answer is in, so a reload meanwhile answers it again; the lock is held already.
    await replyToTurn(turn, inputs, messages.slice(0, -1), conversation, epoch);
    if (answeringMark() === turn.id) markAnswering(null);
  };
  if (typeof navigator === 'undefined' || !navigator.locks) return answer();
  // ifAvailable: a tab that holds the lock is answering this turn now, and its reply will show here.
  await navigator.locks.request(turnLockName(turn.id), { ifAvailable: true }, async (lock) => (lock ? answer() : undefined));
}

/** A stored turn's inputs, read back: its photos' Blobs, and its video (decoded again from the stored file when it was not watched). */
async function storedInputsOf(turn: ChatMessage): Promise<TurnInputs> {
  const text = turn.elements.flatMap((e) => (e.kind === 'text' ? [e.text] : [])).join('\n');
  const images: { imageId: string; name: string; blob: Blob }[] = [];
  for (const e of turn.elements) {
    if (e.kind !== 'image') continue;
    const blob = await loadImage(e.imageId);
    if (!blob) throw new Error(`its photo ${e.name} is not stored in this browser. Share it again.`);
    images.push({ imageId: e.imageId, name: e.name, blob });
  }
  const video = turn.elements.find((e) => e.kind === 'video');
  let watch: TurnInputs['watch'] = null;
  if (video?.analysis) watch = () => Promise.resolve(video);
  else if (video) {
    watch = async () => {
      const blob = await loadVideo(video.videoId);
      if (!blob) throw new Error(`the video ${video.name} is not stored in this browser. Share it again.`);
      const decoded = await decodeVideo(new File([blob], video.name, { type: blob.type }));
      return watchVideo({ videoId: video.videoId, posterId: video.posterId, sheetId: video.sheetId, name: video.name, file: blob, decoded });
    };
  }
  return { text, images, watch };
}

function activePackName(): string | undefined {
  const { packs, activePackId } = useModelStore.getState();
  return packs.find((p) => p.id === activePackId)?.name ?? activePackId ?? undefined;
}

/** The conversation so far as the worker's context: texts, the person's photos (Blobs) and pool images by key. */
async function historyOf(messages: readonly ChatMessage[]): Promise<HistoryTurn[]> {
  return Promise.all(
    messages.map(async (m) => ({
      elements: (
        await Promise.all(
          m.elements.map(async (e): Promise<HistoryElement | null> => {
            if (e.kind === 'text') return { kind: 'text', text: e.text };
            if (e.kind === 'poolImage') return { kind: 'poolImage', key: e.key };
            // The reply pipeline reads a video as what was said about it.
            if (e.kind === 'video') return e.description ? { kind: 'text', text: e.description } : null;
            // A photo the check called unfit is never context again, after a reload or a worker restart too.
            if (e.check === 'unfit') return null;
            const blob = await loadImage(e.imageId);
            return blob ? { kind: 'image', imageId: e.imageId, blob } : null;
          }),
        )
      ).filter((e): e is HistoryElement => e !== null),
    })),
  );
}

function offerUndo(text: string, after: ChatMessage[], takeBack: () => Promise<void>): void {
  withdrawUndoOffer();
  const noticeId = noticeActions.notifyAboutConversation('info', text, { label: 'Undo', run: () => void takeBackLastChange() });
  chatActions.setUndoOffer({ noticeId, after, takeBack });
}

function withdrawUndoOffer(): void {
  const offer = useChatStore.getState().undoOffer;
  if (offer) noticeActions.dismiss(offer.noticeId);
  chatActions.setUndoOffer(null);
}

/** Takes back the last undo or new conversation, if the conversation is still as that left it. */
async function takeBackLastChange(): Promise<void> {
  const offer = useChatStore.getState().undoOffer;
  if (!offer) return;
  if (useChatStore.getState().awaitingReply) {
    noticeActions.notifyAboutConversation('info', 'A reply is still being worked out. Wait for it to finish, then press Undo again.');
    return;
  }
  withdrawUndoOffer();
  // By ids, not identity: another tab's write reloads the same list as a new array.
  const now = useChatStore.getState().messages;
  if (now.length !== offer.after.length || now.some((m, i) => m.id !== offer.after[i]!.id)) {
    noticeActions.notifyAboutConversation('info', 'The conversation has changed since, so that step can no longer be taken back.');
    return;
  }
  await offer.takeBack();
}

function persistError(what: string): (e: unknown) => void {
  return (e) => noticeActions.notify('error', `${what} could not be saved for later (${errorMessage(e)}); it is still on screen.`);
}

/** The stored Blobs of the photos in these messages, read before the messages are removed, so Undo can write them back. */
async function photosOf(messages: readonly ChatMessage[]): Promise<{ imageId: string; blob: Blob }[]> {
  const videoIds = new Set(messages.flatMap((m) => m.elements.flatMap((e) => (e.kind === 'video' ? [e.videoId] : []))));
  const ids = messages.flatMap((m) =>
    m.elements.flatMap((e) => (e.kind === 'image' ? [e.imageId] : e.kind === 'video' ? [e.videoId, e.posterId, e.sheetId] : [])),
  );
  const blobs = await Promise.all(ids.map((id) => (videoIds.has(id) ? loadVideo(id) : loadImage(id)).catch(() => undefined)));
  return ids.flatMap((imageId, i) => (blobs[i] ? [{ imageId, blob: blobs[i] }] : []));
}

/**
 * Removes the latest exchange: the person's last turn and the reply to it (or that turn alone, when
 * no reply came). Its text and photos go back into the composer, so nothing is lost, and a notice
 * offers to take the undo back.
 */
export async function undoLastTurn(): Promise<void> {
  const { messages, awaitingReply, hydrated } = useChatStore.getState();
  if (!hydrated) return;
  if (awaitingReply) {
    noticeActions.notifyAboutConversation('info', 'A reply is on its way. Wait for it, then undo.');
    return;
  }
  if (messages.length === 0) {
    noticeActions.notifyAboutConversation('info', 'There is nothing to undo: the conversation is empty.');
    return;
  }
  let start = messages.length - 1;
  while (start > 0 && messages[start]!.role !== 'user') start--;
  if (messages[start]!.role !== 'user') start = messages.length - 1; // only replies: remove the last one
  const kept = messages.slice(0, start);
  const removed = messages.slice(start);
  const turn = removed[0]!.role === 'user' ? removed[0]! : undefined;
  const photos = await photosOf(turn ? [turn] : []);
  const blobOf = new Map(photos.map((p) => [p.imageId, p.blob]));

  // Something else may have changed the conversation while the photos were read.
  if (useChatStore.getState().messages !== messages || useChatStore.getState().awaitingReply) return;
  const textBefore = useChatStore.getState().draftText;
  const draftsBefore = useChatStore.getState().draftImages;
  const turnText = (turn?.elements ?? []).flatMap((e) => (e.kind === 'text' ? [e.text] : [])).join('\n');
  const restoredText = turnText === '' ? textBefore : textBefore.trim() === '' ? turnText : `${turnText}\n${textBefore}`;
  const restoredPhotos: DraftImage[] = (turn?.elements ?? []).flatMap((e) =>
    e.kind === 'image' && blobOf.has(e.imageId) ? [{ imageId: e.imageId, name: e.name, blob: blobOf.get(e.imageId)!, width: e.width, height: e.height }] : [],
  );
  const lostPhotos = (turn?.elements ?? []).filter((e) => e.kind === 'image').length - restoredPhotos.length;

  const conversation = currentConversationId();
  chatActions.setMessages(kept);
  chatActions.setDraftText(restoredText);
  chatActions.setDraftImages([...restoredPhotos, ...draftsBefore]);
  const turnVideo = turn?.elements.find((e) => e.kind === 'video');
  const videoBlob = turnVideo ? blobOf.get(turnVideo.videoId) : undefined;
  // The video goes back into the composer too, decoded again (nothing of it is kept in memory).
  if (turnVideo && videoBlob && !useChatStore.getState().draftVideo) void attachVideo(new File([videoBlob], turnVideo.name, { type: videoBlob.type }));
  if (conversation !== null) {
    void removeStored(
      conversation,
      removed.map((m) => m.id),
      photos.map((p) => p.imageId),
    ).catch(persistError('The shorter conversation'));
  }

  const what = turn ? (removed.length > 1 ? 'your last turn and its reply' : 'your last turn') : 'the last reply';
  const returned = [turnText ? 'text' : '', restoredPhotos.length > 0 ? 'photos' : '', turnVideo && videoBlob ? 'video' : ''].filter(Boolean);
  const back =
    turn && returned.length > 0
      ? ` Its ${returned.length > 1 ? `${returned.slice(0, -1).join(', ')} and ${returned[returned.length - 1]} are` : `${returned[0]} ${returned[0] === 'photos' ? 'are' : 'is'}`} back in the message box.`
      : '';
  const lost = lostPhotos > 0 ? ` ${lostPhotos} of its photos could not be read back.` : '';
  offerUndo(`Removed ${what}.${back}${lost}`, kept, async () => {
    const now = useChatStore.getState();
    if (now.draftText === restoredText) chatActions.setDraftText(textBefore);
    const restoredIds = new Set(restoredPhotos.map((p) => p.imageId));
    chatActions.setDraftImages(now.draftImages.filter((d) => !restoredIds.has(d.imageId)));
    chatActions.setMessages([...kept, ...removed]);
    await saveChanged(removed, photos, conversation);
  });
}

/**
 * Starts a new, empty conversation. By default the old one stays stored and a notice offers Undo,
 * which points back at it; the composer is left as it is. `undoable: false` (a kiosk reset for the
 * next visitor) also empties the composer and keeps nothing of the kiosk's conversation.
 */
export async function startNewConversation(options: { undoable?: boolean } = {}): Promise<void> {
  const undoable = options.undoable ?? true;
  const hadMessages = useChatStore.getState().messages.length > 0;
  chatActions.nextConversationEpoch();
  withdrawUndoOffer();
  noticeActions.dismissConversationNotices();
  if (undoable) chatActions.setMessages([]);
  else {
    chatActions.clearConversation();
    chatActions.setDraftText('');
  }
  const cleared = useChatStore.getState().messages;
  let ids: { previousId: string; conversationId: string };
  try {
    ids = await startFresh(undoable);
  } catch (error) {
    persistError('The new, empty conversation')(error);
    return;
  }
  if (!undoable || !hadMessages) return;
  offerUndo('Started a new conversation.', cleared, async () => {
    if (!(await restorePrevious(ids.previousId, ids.conversationId).catch(() => false))) {
      noticeActions.notifyAboutConversation('info', 'The new conversation has turns now (perhaps from another tab), so the earlier one cannot come back.');
    }
  });
}

/** A sample prompt of the start screen: it goes into the message box and is sent, as if typed. */
export async function sendSamplePrompt(text: string): Promise<void> {
  chatActions.setDraftText(text);
  if ((await sendTurn(text)) && useChatStore.getState().draftText === text) chatActions.setDraftText('');
}

/**
 * A sample photo of the start screen: fetched from the pool and shared as if the visitor attached it
 * (the worker checks it, then it goes through the detector and the caption like any photo).
 */
export async function shareSamplePhoto(url: string, name: string): Promise<void> {
  let blob: Blob;
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    blob = await response.blob();
  } catch (error) {
    noticeActions.notifyAboutConversation(
      'error',
      `The sample photo could not be loaded (${errorMessage(error)}). Try another one, or share a photo of your own.`,
    );
    return;
  }
  if ((await attachImages([new File([blob], name, { type: blob.type || 'image/webp' })])) > 0) return;
  await sendTurn('');
}
