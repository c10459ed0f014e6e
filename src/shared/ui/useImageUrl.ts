import { useEffect, useState } from 'react';
import { loadImage, loadVideo } from '../../persistence/conversationDb';
import { loadDatasetImage } from '../../persistence/datasetDb';

/**
 * An object URL for the Blob `load` reads (null: nothing to read), read again when `deps` (what `load`
 * reads from) change, and revoked when the component goes away.
 */
function useObjectUrl(load: (() => Promise<Blob | undefined>) | null, deps: readonly unknown[]): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!load) return;
    let created: string | null = null;
    let cancelled = false;
    void load().then(
      (b) => {
        if (cancelled || !b) return;
        created = URL.createObjectURL(b);
        setUrl(created);
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
      if (created) URL.revokeObjectURL(created);
    };
    // `load` is a new closure each render; `deps` are what it reads.
  }, deps);
  return url;
}

/** An object URL for a stored image (or a Blob at hand), revoked when the component goes away. */
export function useImageUrl(imageId: string, blob?: Blob): string | null {
  return useObjectUrl(() => (blob ? Promise.resolve(blob) : loadImage(imageId)), [imageId, blob]);
}

/** An object URL for a shared video's stored file once `videoId` is set (it is read only when asked to play). */
export function useVideoUrl(videoId: string | null): string | null {
  return useObjectUrl(videoId ? () => loadVideo(videoId) : null, [videoId]);
}

/** The URL of a pool image: the demo pool's file, or an object URL of a stored dataset's image. */
export function usePoolImageUrl(poolId: string, key: string, url: string | null): string | null {
  const objectUrl = useObjectUrl(url ? null : () => loadDatasetImage(poolId, key), [poolId, key, url]);
  return url ?? objectUrl;
}
