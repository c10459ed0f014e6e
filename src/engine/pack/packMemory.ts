/**
 * Whether a device has the memory a pack needs, checked before the pack is loaded: a worker that runs
 * out of memory takes the whole tab with it in Chromium ("Aw, Snap"), with no error event to catch.
 *
 * A pack's ONNX files are read whole, copied into onnxruntime's WebAssembly memory, and its sessions
 * hold their weights and activations beside them: about three times the files' bytes, plus the page
 * and the pool (PAGE_BYTES). The browser gives a tab only part of a device's memory, so the pack may
 * take at most half of what `navigator.deviceMemory` reports (which Chromium rounds down to a power
 * of two and caps at 8 GiB, so a large machine is never refused).
 * `performance.measureUserAgentSpecificMemory` is not used: it says what the page already uses, not
 * what the device has free, and Chromium answers it only at its next garbage collection (up to about
 * 20 s later), too late to hold a load back.
 */
const FILE_BYTES_FACTOR = 3;
const PAGE_BYTES = 300e6;
const SHARE_OF_DEVICE = 0.5;

export interface PackMemoryCheck {
  /** What loading the pack is estimated to take, in bytes. */
  readonly neededBytes: number;
  /** What the pack may take on this device, in bytes; null when the browser does not say (then nothing is refused). */
  readonly allowedBytes: number | null;
  /** A sentence for the person when the pack is refused; null when it may load. */
  readonly refusal: string | null;
}

const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`;

/** `deviceMemoryGiB`: navigator.deviceMemory (undefined where the browser has none, as Firefox and Safari). */
export function checkPackMemory(
  pack: { name: string; files: readonly { bytes: number }[] },
  deviceMemoryGiB: number | undefined,
  smaller: string | null,
): PackMemoryCheck {
  const fileBytes = pack.files.reduce((sum, f) => sum + f.bytes, 0);
  const neededBytes = fileBytes * FILE_BYTES_FACTOR + PAGE_BYTES;
  if (deviceMemoryGiB === undefined || !Number.isFinite(deviceMemoryGiB) || deviceMemoryGiB <= 0) return { neededBytes, allowedBytes: null, refusal: null };
  const allowedBytes = deviceMemoryGiB * 2 ** 30 * SHARE_OF_DEVICE;
  if (neededBytes <= allowedBytes) return { neededBytes, allowedBytes, refusal: null };
  return {
    neededBytes,
    allowedBytes,
    refusal: `${pack.name} needs about ${gb(neededBytes)} of memory, more than this device can give a browser tab (it reports ${deviceMemoryGiB} GB in all), so it was not loaded: loading it could crash the tab. ${smaller ? `Choose ${smaller} in Settings, or use a device with more memory.` : 'Use a device with more memory.'}`,
  };
}
