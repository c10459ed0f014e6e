import { useEffect, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { capturePhoto, closeCamera, openCamera, watchCameras } from './cameraController';
import { useCameraStore } from './cameraStore';
import { preparePhotoPath } from './warmUp';

const BUTTON =
  'rounded-lg border border-slate-300 px-3 py-2 text-sm text-slate-800 hover:bg-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600';

/** "Take photo", shown only when the device lists a camera. */
export function CameraButton() {
  const available = useCameraStore((s) => s.available);
  useEffect(() => watchCameras(), []);
  if (!available) return null;
  return (
    <>
      <button
        type="button"
        onClick={() => {
          preparePhotoPath();
          void openCamera();
        }}
        className={BUTTON}
      >
        Take photo
      </button>
      <CameraDialog />
    </>
  );
}

/** A live preview with Capture and Cancel; closing it in any way turns the camera off. */
function CameraDialog() {
  const { open, phase, stream, error } = useCameraStore(useShallow((s) => ({ open: s.open, phase: s.phase, stream: s.stream, error: s.error })));
  const dialog = useRef<HTMLDialogElement>(null);
  const video = useRef<HTMLVideoElement>(null);

  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (open && !el.open) el.showModal();
    if (!open && el.open) el.close();
  }, [open]);
  useEffect(() => {
    if (video.current) video.current.srcObject = stream;
  }, [stream]);
  // Leaving the page (or unmounting) must not leave the camera on.
  useEffect(() => () => closeCamera(), []);

  return (
    <dialog
      ref={dialog}
      // Escape hides a modal dialog before its close event fires (a task later); cancel fires first, so the
      // camera goes off as the dialog goes, not after it.
      onCancel={() => closeCamera()}
      onClose={() => closeCamera()}
      aria-labelledby="camera-title"
      className="m-auto w-[min(40rem,95vw)] rounded-xl bg-white p-0 shadow-xl backdrop:bg-slate-900/50"
    >
      <div className="flex flex-col gap-3 p-4">
        <h2 id="camera-title" className="text-lg font-semibold">
          Take a photo
        </h2>
        {phase === 'error' ? (
          <p role="alert" className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-900 ring-1 ring-red-200">
            {error}
          </p>
        ) : (
          <div className="relative flex aspect-[4/3] items-center justify-center overflow-hidden rounded-lg bg-slate-900">
            <video ref={video} autoPlay playsInline muted aria-label="Camera preview" className="h-full w-full object-contain" />
            {phase === 'starting' && (
              <p role="status" className="absolute text-sm text-white">
                Starting the camera…
              </p>
            )}
          </div>
        )}
        <div className="flex justify-end gap-2">
          <button type="button" onClick={() => closeCamera()} className={BUTTON}>
            Cancel
          </button>
          {phase === 'error' ? (
            <button type="button" onClick={() => void openCamera()} className={BUTTON}>
              Try again
            </button>
          ) : (
            <button
              type="button"
              disabled={phase !== 'live'}
              onClick={() => video.current && void capturePhoto(video.current)}
              className="rounded-lg bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800 disabled:bg-slate-400 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
            >
              Capture
            </button>
          )}
        </div>
      </div>
    </dialog>
  );
}
