import { describe, expect, it } from 'vitest';
import { renderScene } from '../engine/clevr/render';
import { generateScene } from '../engine/clevr/scene';
import { ClevrService } from './clevrService';
import type { ClevrQuestionParams } from '../protocol/protocol';

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

  it('stops drawing at its next slice when its call is cancelled', async () => {
    const service = new ClevrService();
    const cancel = new AbortController();
    const drawing = service.render(objects, cancel.signal);
    cancel.abort('cancelled');
    await expect(drawing).rejects.toBe('cancelled');
    // The service still draws what is asked next.
    expect((await service.render(objects.slice(0, 3))).pixels).toEqual(renderScene(objects.slice(0, 3)).data);
  });
});

describe('the worker answering CLEVR questions, cancelled', () => {
  it('a cancelled load call ends at once, and the load goes on for the next call', async () => {
    const service = new ClevrService();
    let startPlan = () => undefined as void;
    const plan = () =>
      new Promise<never>((_, reject) => {
        // The plan is held until the test lets it go; then the load fails, with a sentence the next call gets.
        startPlan = () => reject(new Error('no runtime in this test'));
      });
    const cancel = new AbortController();
    const first = service.load({ baseUrl: 'http://localhost:1/models/clevr/', files: ['clevr.json'] }, plan, cancel.signal);
    cancel.abort('cancelled');
    await expect(first).rejects.toBe('cancelled');
    startPlan();
    const second = await service.load({ baseUrl: 'http://localhost:1/models/clevr/', files: ['clevr.json'] }, plan);
    expect(second).toEqual({ models: [], defaultModel: null, provider: null, note: 'no runtime in this test' });
  });

  it('a cancelled question is not answered', async () => {
    const service = new ClevrService();
    const cancel = new AbortController();
    cancel.abort('cancelled');
    const objects = generateScene(1, 0, { minObjects: 3, maxObjects: 3 }).objects;
    const question: ClevrQuestionParams = {
      model: 'random-q',
      objects: [...objects],
      caption: 'there are three things',
      earlier: [],
      question: 'how many things are there?',
      template: 'count-all',
    };
    await expect(service.answer(question, cancel.signal)).rejects.toBe('cancelled');
  });
});
