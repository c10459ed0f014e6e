import { cameraActions, useCameraStore } from './cameraStore';
import { attachImages } from './chatController';
import { errorMessage } from '../../engine/errors';
import { LatestCall } from '../../shared/latestCall';

/** The camera being started: closing the dialog or opening it again aborts it, so a camera that starts after that is stopped at once. */
const cameraStart = new LatestCall();

async function hasCamera(): Promise<boolean> {
  try {
    const devices = await navigator.mediaDevices.enumerateDevices();
    return devices.some((d) => d.kind === 'videoinput');
  } catch {
    return false;
  }
}

/** Keeps "Take photo" in step with the cameras the device has (one plugged in later counts); returns the unsubscribe. */
export function watchCameras(): () => void {
  const media = typeof navigator !== 'undefined' ? navigator.mediaDevices : undefined;
  if (!media?.enumerateDevices) {
    cameraActions.available(false);
    return () => undefined;
  }
  const update = () => void hasCamera().then(cameraActions.available);
  update();
  media.addEventListener?.('devicechange', update);
  return () => media.removeEventListener?.('devicechange', update);
}

/** A sentence for each way getUserMedia fails: what happened and what to do. */
function cameraErrorMessage(error: unknown): string {
  const name = error instanceof DOMException || error instanceof Error ? error.name : '';
  switch (name) {
    case 'NotAllowedError':
    case 'PermissionDeniedError':
      return 'The browser was not allowed to use the camera. Allow camera access for this page (the camera icon in the address bar or the site settings), then choose Try again; or use Add photos.';
    case 'NotFoundError':
    case 'DevicesNotFoundError':
    case 'OverconstrainedError':
      return 'No camera was found. Connect one and choose Try again, or use Add photos.';
    case 'NotReadableError':
    case 'TrackStartError':
    case 'AbortError':
      return 'The camera could not be started: another app or tab may be using it. Close that, then choose Try again; or use Add photos.';
    case 'SecurityError':
      return 'The camera can only be used on a secure page (https or localhost). Open the demo that way, or use Add photos.';
    default:
      return `The camera could not be started (${errorMessage(error)}). Choose Try again, or use Add photos.`;
  }
}

function stopTracks(stream: MediaStream | null): void {
  for (const track of stream?.getTracks() ?? []) track.stop();
}

/** Opens the camera dialog and starts the preview. */
export async function openCamera(): Promise<void> {
  const started = cameraStart.start();
  stopTracks(useCameraStore.getState().stream);
  cameraActions.starting();
  if (!navigator.mediaDevices?.getUserMedia) {
    cameraActions.failed('This browser cannot use a camera from a web page here (it needs https or localhost). Use Add photos instead.');
    cameraStart.finish(started);
    return;
  }
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 1280 }, height: { ideal: 960 } }, audio: false });
    if (started.aborted || !useCameraStore.getState().open) {
      stopTracks(stream); // the dialog was closed (or reopened) while the camera started
      return;
    }
    cameraActions.live(stream);
  } catch (error) {
    if (!started.aborted && useCameraStore.getState().open) cameraActions.failed(cameraErrorMessage(error));
  } finally {
    cameraStart.finish(started);
  }
}

/** Closes the dialog and turns the camera off (its light goes out). */
export function closeCamera(): void {
  cameraStart.cancel();
  stopTracks(useCameraStore.getState().stream);
  cameraActions.closed();
}

function timestamp(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
}

/** Takes the current frame of the preview as a JPEG and adds it to the message, checked like a picked file. */
export async function capturePhoto(video: HTMLVideoElement): Promise<void> {
  const { videoWidth: width, videoHeight: height } = video;
  if (width === 0 || height === 0) {
    cameraActions.failed('The camera has not sent a picture yet. Choose Try again; if it stays dark, use Add photos.');
    return;
  }
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d');
  if (!context) {
    cameraActions.failed('The photo could not be taken: this browser has no canvas to draw it on. Use Add photos instead.');
    return;
  }
  context.drawImage(video, 0, 0, width, height);
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.92));
  if (!blob) {
    cameraActions.failed('The photo could not be encoded as JPEG. Choose Try again, or use Add photos.');
    return;
  }
  closeCamera();
  await attachImages([new File([blob], `camera-${timestamp(new Date())}.jpg`, { type: 'image/jpeg' })]);
}
