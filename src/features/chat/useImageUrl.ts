import { useEffect, useState } from 'react';
import { loadImage } from '../../persistence/conversationDb';

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
