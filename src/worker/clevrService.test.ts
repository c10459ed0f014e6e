import { describe, expect, it } from 'vitest';
import { renderScene } from '../engine/clevr/render';
import { generateScene } from '../engine/clevr/scene';
import { ClevrService } from './clevrService';

describe('the worker drawing CLEVR scenes', () => {
  const objects = generateScene(1, 0, { minObjects: 10, maxObjects: 10 }).objects;

  it('hands the thread back while it draws: a task queued after the drawing starts runs before the picture is done', async () => {
    const service = new ClevrService();
    let done = false;
    const drawing = service.render(objects).then((picture) => {
      done = true;
      return picture;
    });
    // A zero-delay task, as a reply's message is: with the whole picture drawn at once it would find it done.
    const doneWhenOthersRan = await new Promise<boolean>((resolve) => setTimeout(() => resolve(done), 0));
    expect(doneWhenOthersRan).toBe(false);
    const picture = await drawing;
    expect(picture.pixels).toEqual(renderScene(objects).data);
  });

  it('stops an older drawing when a newer scene is asked for, and draws the newer one', async () => {
    const service = new ClevrService();
    const older = service.render(objects);
    const newer = service.render(objects.slice(0, 3));
    await expect(older).rejects.toThrow('A newer scene was asked for before this one was drawn.');
    expect((await newer).pixels).toEqual(renderScene(objects.slice(0, 3)).data);
  });
});
