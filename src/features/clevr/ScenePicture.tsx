import { useEffect, useRef, useState } from 'react';
import { renderScene } from '../../engine/clevr/render';
import { type Scene, IMAGE_HEIGHT, IMAGE_WIDTH, objectRadiusPixels } from '../../engine/clevr/scene';
import { useClevrStore } from './clevrStore';

/** The quick preview's size: 1/25 of the full picture's rays, a few tens of milliseconds here on the page. */
const PREVIEW_WIDTH = 192;
const PREVIEW_HEIGHT = 128;

/**
 * The scene as drawn by the worker, with the objects the dialog refers to outlined. The worker may be
 * busy (loading the pack, warming up) when the view opens, so the page first draws a small, one-ray-a-pixel
 * preview of the same scene itself; the worker's full picture replaces it when it comes.
 */
export function ScenePicture({ description }: { description: string }) {
  const picture = useClevrStore((s) => s.picture);
  const pictureError = useClevrStore((s) => s.pictureError);
  const scene = useClevrStore((s) => s.scene);
  const highlight = useClevrStore((s) => s.highlight);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [previewOf, setPreviewOf] = useState<Scene | null>(null);
  useEffect(() => {
    const context = canvas.current?.getContext('2d');
    if (!context || !picture) return;
    context.putImageData(new ImageData(new Uint8ClampedArray(picture.pixels), picture.width, picture.height), 0, 0);
  }, [picture]);
  useEffect(() => {
    const context = canvas.current?.getContext('2d');
    if (!context || !scene || picture) return;
    const small = renderScene(scene.objects, PREVIEW_WIDTH, PREVIEW_HEIGHT, 1);
    const buffer = document.createElement('canvas');
    buffer.width = small.width;
    buffer.height = small.height;
    buffer.getContext('2d')?.putImageData(new ImageData(new Uint8ClampedArray(small.data), small.width, small.height), 0, 0);
    context.drawImage(buffer, 0, 0, IMAGE_WIDTH, IMAGE_HEIGHT);
    setPreviewOf(scene);
  }, [scene, picture]);
  const previewShown = !picture && previewOf !== null && previewOf === scene;
  return (
    <figure className="relative w-full max-w-[480px]">
      <div className="relative aspect-[3/2] w-full overflow-hidden rounded-lg bg-slate-300">
        <canvas
          ref={canvas}
          width={IMAGE_WIDTH}
          height={IMAGE_HEIGHT}
          className="h-full w-full"
          role="img"
          aria-label={description}
          data-testid="clevr-picture"
          data-drawn={picture !== null}
          data-preview={previewShown}
        />
        {!picture && !pictureError && !previewShown && (
          <p className="absolute inset-0 flex items-center justify-center text-sm text-slate-700">Drawing the scene…</p>
        )}
        {scene && (
          <svg viewBox={`0 0 ${IMAGE_WIDTH} ${IMAGE_HEIGHT}`} className="pointer-events-none absolute inset-0 h-full w-full" aria-hidden="true">
            {highlight.map((i) => {
              const o = scene.objects[i];
              if (!o) return null;
              return (
                <circle
                  key={i}
                  cx={o.pixel_coords[0]}
                  cy={o.pixel_coords[1]}
                  r={objectRadiusPixels(o)}
                  fill="none"
                  stroke="#facc15"
                  strokeWidth={4}
                  strokeDasharray="8 4"
                  data-testid="clevr-highlight"
                  data-object={i}
                />
              );
            })}
          </svg>
        )}
      </div>
      {pictureError && (
        <p role="alert" className="mt-1 text-sm text-red-800">
          {pictureError}
        </p>
      )}
    </figure>
  );
}
