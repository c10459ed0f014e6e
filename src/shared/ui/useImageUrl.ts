import { useEffect, useState } from 'react';
import { loadImage, loadVideo } from '../../persistence/conversationDb';
import { loadDatasetImage } from '../../persistence/datasetDb';

/** An object URL for a stored image (or a Blob at hand), revoked when the component goes away. */
export function useImageUrl(imageId: string, blob?: Blob): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let created: string | null = null;
    let cancelled = false;
    const show = (b: Blob | undefined) => {
      if (cancelled || !b) return;
      created = URL.createObjectURL(b);
      setUrl(created);
    };
    if (blob) show(blob);
    else void loadImage(imageId).then(show, () => undefined);
    return () => {
      cancelled = true;
      if (created) URL.revokeObjectURL(created);
    };
  }, [imageId, blob]);
  return url;
}

/** An object URL for a shared video's stored file once `videoId` is set (it is read only when asked to play), revoked when done. */
export function useVideoUrl(videoId: string | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!videoId) return;
    let created: string | null = null;
    let cancelled = false;
    void loadVideo(videoId).then((b) => {
      if (cancelled || !b) return;
      created = URL.createObjectURL(b);
      setUrl(created);
    }, () => undefined);
    return () => {
      cancelled = true;
      if (created) URL.revokeObjectURL(created);
    };
  }, [videoId]);
  return url;
}

/** The URL of a pool image: the demo pool's file, or an object URL of a stored dataset's image. */
export function usePoolImageUrl(poolId: string, key: string, url: string | null): string | null {
  const [objectUrl, setObjectUrl] = useState<string | null>(null);
  useEffect(() => {
    if (url) return;
    let created: string | null = null;
    let cancelled = false;
    void loadDatasetImage(poolId, key).then((b) => {
      if (cancelled || !b) return;
      created = URL.createObjectURL(b);
      setObjectUrl(created);
    }, () => undefined);
    return () => {
      cancelled = true;
      if (created) URL.revokeObjectURL(created);
    };
  }, [poolId, key, url]);
  return url ?? objectUrl;
}
