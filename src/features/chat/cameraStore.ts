import { create } from 'zustand';

interface CameraState {
  /** Whether the device lists a camera; "Take photo" is shown only then. */
  available: boolean;
  /** The camera dialog is open. */
  open: boolean;
  phase: 'starting' | 'live' | 'error';
  stream: MediaStream | null;
  /** What went wrong and what to do, while phase is 'error'. */
  error: string | null;
}

export const useCameraStore = create<CameraState>()(() => ({ available: false, open: false, phase: 'starting', stream: null, error: null }));

export const cameraActions = {
  available: (available: boolean) => {
    useCameraStore.setState({ available });
  },
  starting: () => {
    useCameraStore.setState({ open: true, phase: 'starting', stream: null, error: null });
  },
  live: (stream: MediaStream) => {
    useCameraStore.setState({ phase: 'live', stream, error: null });
  },
  failed: (error: string) => {
    useCameraStore.setState({ phase: 'error', stream: null, error });
  },
  closed: () => {
    useCameraStore.setState({ open: false, phase: 'starting', stream: null, error: null });
  },
};
