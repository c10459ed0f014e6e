import { useEffect, useRef } from 'react';
import { objectRadiusPixels } from '../../engine/clevr/scene';
import { useClevrStore } from './clevrStore';

/** The scene as drawn by the worker, with the objects the dialog refers to outlined. */
export function ScenePicture({ description }: { description: string }) {
  const picture = useClevrStore((s) => s.picture);
  const pictureError = useClevrStore((s) => s.pictureError);
  const scene = useClevrStore((s) => s.scene);
  const highlight = useClevrStore((s) => s.highlight);
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const context = canvas.current?.getContext('2d');
    if (!context || !picture) return;
    context.putImageData(new ImageData(new Uint8ClampedArray(picture.pixels), picture.width, picture.height), 0, 0);
  }, [picture]);
  return (
    <figure className="relative w-full max-w-[480px]">
      <div className="relative aspect-[3/2] w-full overflow-hidden rounded-lg bg-slate-300">
        <canvas ref={canvas} width={480} height={320} className="h-full w-full" role="img" aria-label={description} data-testid="clevr-picture" data-drawn={picture !== null} />
        {!picture && !pictureError && <p className="absolute inset-0 flex items-center justify-center text-sm text-slate-700">Drawing the scene…</p>}
        {scene && (
          <svg viewBox="0 0 480 320" className="pointer-events-none absolute inset-0 h-full w-full" aria-hidden="true">
            {highlight.map((i) => {
              const o = scene.objects[i];
              if (!o) return null;
              return <circle key={i} cx={o.pixel_coords[0]} cy={o.pixel_coords[1]} r={objectRadiusPixels(o)} fill="none" stroke="#facc15" strokeWidth={4} strokeDasharray="8 4" data-testid="clevr-highlight" data-object={i} />;
            })}
          </svg>
        )}
      </div>
      {pictureError && <p role="alert" className="mt-1 text-sm text-red-800">{pictureError}</p>}
    </figure>
  );
}
