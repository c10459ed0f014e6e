import { expect, test } from '@playwright/test';
import { ask } from '../src/engine/clevr/dialogGrammar';
import { dialogOpenings, generateDialogs } from '../src/engine/clevr/generateDialogs';
import { parseQuestion } from '../src/engine/clevr/questionParser';
import { clevrScenesJson } from '../src/engine/clevr/clevrFiles';
import { MAX_SCENE_OBJECTS, generateScene } from '../src/engine/clevr/scene';
import { seededRandom } from '../src/engine/random';
import { seriousViolations } from './axe';
import { openPresenter, openReady, sendText, modelReady } from './helpers';

/** The page's scene 0 of seed 1 and the generator's first dialog about it, computed here in Node. */
const SEED = 1;
const scene = generateScene(SEED, 0, { split: 'page' });
const dialog = generateDialogs(scene, SEED).dialogs[0]!;

test.describe('CLEVR-Dialog view', () => {
  test('plays a generated dialog: the page answers from the scene graph as the generator did, links each reference to its object, and counts accuracy by distance', async ({
    page,
  }) => {
    await openReady(page, 'test-tiny-clip', '&clevr=1:0');
    const view = page.getByTestId('clevr-view');
    await expect(view).toBeVisible();
    await expect(view.getByTestId('clevr-caption')).toHaveText(dialog.caption);
    await expect(view.getByTestId('clevr-picture')).toHaveAttribute('data-drawn', 'true');
    // The caption's objects are outlined.
    await expect(view.getByTestId('clevr-highlight')).toHaveCount(dialog.caption_objects.length);
    await expect(view.getByTestId('clevr-models-note')).not.toHaveText(/Loading/);

    const input = view.getByRole('textbox', { name: 'Ask about the picture' });
    for (const [n, round] of dialog.dialog.entries()) {
      await input.fill(round.question);
      await input.press('Enter');
      const shown = view.getByTestId('clevr-round').nth(n);
      await expect(shown.getByTestId('clevr-truth')).toHaveText(`scene graph: ${round.answer}`);
      await expect(shown.getByTestId('clevr-model-answer')).not.toContainText('…');
      if (round.coref_distance !== null) {
        await expect(shown.getByTestId('clevr-coref')).toHaveAttribute('data-distance', String(round.coref_distance));
        // The objects the question refers to are the ones outlined.
        const outlined = await view.getByTestId('clevr-highlight').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-object'))));
        expect(outlined.sort()).toEqual([...round.referents].sort());
      }
    }
    await expect(view.getByTestId('clevr-round')).toHaveCount(10);
    const accuracy = view.getByTestId('clevr-accuracy');
    await expect(accuracy).toContainText(/of 10 answers right/);
    // Every question with a reference is counted under its distance.
    const byDistance = new Map<number, number>();
    for (const r of dialog.dialog)
      if (r.coref_distance) byDistance.set(Math.min(10, r.coref_distance), (byDistance.get(Math.min(10, r.coref_distance)) ?? 0) + 1);
    for (const [d, count] of byDistance) await expect(accuracy.getByTestId(`clevr-distance-${d}`)).toContainText(new RegExp(`\\d+/${count}`));
  });

  test('at 1280x720 the picture stays in sight beside ten answers, the model list stays in its column, and the scene file is chosen with a button', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await openReady(page, 'test-tiny-clip', '&clevr=1:0');
    const view = page.getByTestId('clevr-view');
    await expect(view.getByTestId('clevr-picture')).toHaveAttribute('data-drawn', 'true');
    const input = view.getByRole('textbox', { name: 'Ask about the picture' });
    for (const [n, round] of dialog.dialog.entries()) {
      await input.fill(round.question);
      await input.press('Enter');
      const shown = view.getByTestId('clevr-round').nth(n);
      await expect(shown.getByTestId('clevr-truth')).toHaveText(`scene graph: ${round.answer}`);
      // The box empties when the model has answered, so the next question waits for that.
      await expect(shown.getByTestId('clevr-model-answer')).not.toContainText('…');
    }
    await view.getByTestId('clevr-round').last().scrollIntoViewIfNeeded();
    expect(await view.evaluate((el) => el.scrollTop), 'the answers make the view scroll').toBeGreaterThan(0);
    const area = (await view.boundingBox())!;
    const picture = (await view.getByTestId('clevr-picture').boundingBox())!;
    expect(picture.y, 'the picture has scrolled out of view').toBeGreaterThanOrEqual(area.y - 0.5);
    expect(picture.y + picture.height, 'the picture has scrolled out of view').toBeLessThanOrEqual(area.y + area.height + 0.5);
    await expect(view.getByTestId('clevr-round').last()).toBeInViewport();

    await view.evaluate((el) => el.scrollTo(0, 0));
    const model = (await view.getByRole('combobox', { name: 'Model' }).boundingBox())!;
    const questions = (await view.getByRole('list', { name: 'Questions and answers' }).boundingBox())!;
    expect(model.x + model.width, 'the model list reaches into the questions column').toBeLessThanOrEqual(questions.x);
    // The file input is hidden behind a button-like label; its name stays, and the keyboard reaches it.
    const fileButton = view.getByText('Load CLEVR scenes (JSON)', { exact: true });
    await expect(fileButton).toBeVisible();
    const fileInput = view.getByLabel('Load CLEVR scenes (JSON)');
    expect((await fileInput.boundingBox())?.width ?? 0).toBeLessThanOrEqual(1);
    const chooser = page.waitForEvent('filechooser');
    await fileButton.click();
    expect((await chooser).isMultiple()).toBe(false);
  });

  test('a question the grammar cannot read gets a sentence and three it can; one click asks it', async ({ page }) => {
    await openReady(page, 'test-tiny-clip', '&clevr=1:0');
    const view = page.getByTestId('clevr-view');
    await expect(view.getByTestId('clevr-caption')).toHaveText(dialog.caption);
    const input = view.getByRole('textbox', { name: 'Ask about the picture' });
    await input.fill('Why is the sky blue?');
    await input.press('Enter');
    const error = view.getByTestId('clevr-parse-error');
    await expect(error).toContainText('The dialog grammar cannot read "Why is the sky blue?"');
    const offered = error.getByRole('button');
    await expect(offered).toHaveCount(3);
    await expect(input).toHaveValue('Why is the sky blue?');
    const question = (await offered.first().textContent())!;
    await offered.first().click();
    await expect(error).toHaveCount(0);
    const round = view.getByTestId('clevr-round').first();
    await expect(round).toContainText(question);
    // Its true answer is the scene graph's: read the same question with the grammar here.
    const opening = dialogOpenings(scene, SEED).openings[0]!;
    const parsed = parseQuestion(question, scene, opening.state);
    expect(parsed.ok).toBe(true);
    if (parsed.ok)
      await expect(round.getByTestId('clevr-truth')).toHaveText(`scene graph: ${ask(scene, opening.state, parsed.plan, seededRandom(1)).round.answer}`);
  });

  test('in kiosk mode, from the keyboard alone, at phone, tablet and laptop sizes, with no serious accessibility violations', async ({ page }) => {
    await page.goto('/?pack=test-tiny-clip&kiosk=1&idle=60&clevr=1:0');
    await modelReady(page);
    const view = page.getByTestId('clevr-view');
    await expect(view.getByTestId('clevr-picture')).toHaveAttribute('data-drawn', 'true');
    // Keyboard only: focus the question box, type, Enter; then Tab to a suggestion and press Enter.
    await view.getByRole('textbox', { name: 'Ask about the picture' }).focus();
    await page.keyboard.type(dialog.dialog[0]!.question);
    await page.keyboard.press('Enter');
    await expect(view.getByTestId('clevr-round')).toHaveCount(1);
    await page.keyboard.press('Tab'); // the Ask button
    await page.keyboard.press('Tab'); // the first suggestion
    await expect(view.getByRole('list', { name: 'Suggested questions' }).getByRole('button').first()).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(view.getByTestId('clevr-round')).toHaveCount(2);
    for (const [width, height] of [
      [390, 844],
      [820, 1180],
      [1280, 800],
    ] as const) {
      await page.setViewportSize({ width, height });
      await expect(view.getByTestId('clevr-picture')).toBeVisible();
      const box = (await view.getByTestId('clevr-picture').boundingBox())!;
      expect(box.x + box.width, `picture fits at ${width}px`).toBeLessThanOrEqual(width);
      expect(await seriousViolations(page), `CLEVR-Dialog view at ${width}x${height}`).toEqual([]);
    }
  });

  test('loads a CLEVR scene file in CLEVR layout (without pixels or relations), and refuses a malformed one naming the file, scene and field, or a dialog file, keeping the scene on screen', async ({
    page,
  }) => {
    await openReady(page, 'test-tiny-clip', '&clevr=1:0');
    const view = page.getByTestId('clevr-view');
    await expect(view.getByTestId('clevr-caption')).toHaveText(dialog.caption);
    const fileInput = view.getByLabel('Load CLEVR scenes (JSON)');
    const bad = {
      info: {},
      scenes: [
        { image_index: 0, objects: [{ shape: 'cube', color: 'red', material: 'metal', size: 'large', '3d_coords': [0, 0, 0.5] }] },
        { image_index: 12, objects: [{ shape: 'pyramid', color: 'red', material: 'metal', size: 'large', '3d_coords': [0, 0, 0.5] }] },
      ],
    };
    await fileInput.setInputFiles({ name: 'broken_scenes.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bad)) });
    await expect(view.getByTestId('clevr-file-error')).toHaveText(
      'broken_scenes.json, scene 1 (image_index 12): objects[0].shape is "pyramid"; it must be one of cube, sphere, cylinder. The scenes on screen are kept.',
    );
    await expect(view.getByTestId('clevr-caption')).toHaveText(dialog.caption);

    // A dialog file (here in the original generator's layout) chosen for a scene file is named as such.
    const dialogFile = [
      { image_index: 7, split: 'val', image_filename: 'CLEVR_val_000007.png', dialogs: [{ caption: 'A cube.', template_info: [], dialog: [] }] },
    ];
    await fileInput.setInputFiles({ name: 'clevr_dialog_val.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(dialogFile)) });
    await expect(view.getByTestId('clevr-file-error')).toHaveText(
      'clevr_dialog_val.json is a CLEVR-Dialog file (image records with their dialogs), not a scene file. Load the scene file the dialogs are about (as CLEVR_val_scenes.json). The scenes on screen are kept.',
    );
    await expect(view.getByTestId('clevr-caption')).toHaveText(dialog.caption);

    // Two scenes as CLEVR writes them, less the fields the view can compute.
    const good = {
      info: { split: 'val' },
      scenes: [
        {
          image_index: 7,
          image_filename: 'CLEVR_val_000007.png',
          split: 'val',
          objects: [
            { shape: 'sphere', color: 'purple', material: 'metal', size: 'large', '3d_coords': [-1.5, 1.2, 0.7], rotation: 10 },
            { shape: 'cube', color: 'yellow', material: 'rubber', size: 'small', '3d_coords': [1.8, -1.0, 0.35], rotation: 40 },
          ],
        },
        {
          image_index: 8,
          image_filename: 'CLEVR_val_000008.png',
          split: 'val',
          objects: [{ shape: 'cylinder', color: 'cyan', material: 'rubber', size: 'small', '3d_coords': [0.5, 0.5, 0.35], rotation: 0 }],
        },
      ],
    };
    await fileInput.setInputFiles({ name: 'CLEVR_val_scenes.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(good)) });
    await expect(view.getByTestId('clevr-file-error')).toHaveCount(0);
    await expect(view.getByTestId('clevr-scene-source')).toHaveText('CLEVR_val_scenes.json: scene 1 of 2');
    await expect(view.getByTestId('clevr-picture')).toHaveAttribute('data-drawn', 'true');
    const input = view.getByRole('textbox', { name: 'Ask about the picture' });
    await input.fill('How many objects are in the picture?');
    await input.press('Enter');
    await expect(view.getByTestId('clevr-round').first().getByTestId('clevr-truth')).toHaveText('scene graph: 2');
    // The grammar asks only about mentioned objects: count the cubes, then "it" is the one cube.
    await input.fill('How many cubes are there?');
    await input.press('Enter');
    await expect(view.getByTestId('clevr-round').nth(1).getByTestId('clevr-truth')).toHaveText('scene graph: 1');
    await input.fill('What is its color?');
    await input.press('Enter');
    await expect(view.getByTestId('clevr-round').nth(2).getByTestId('clevr-truth')).toHaveText('scene graph: yellow');
    await view.getByRole('button', { name: 'New scene' }).click();
    await expect(view.getByTestId('clevr-scene-source')).toHaveText('CLEVR_val_scenes.json: scene 2 of 2');
  });
});

test.describe('CLEVR scene files: limits by what is drawn', () => {
  const good = {
    info: { split: 'val' },
    scenes: [
      {
        image_index: 7,
        split: 'val',
        objects: [{ shape: 'sphere', color: 'purple', material: 'metal', size: 'large', '3d_coords': [-1.5, 1.2, 0.7], rotation: 10 }],
      },
      {
        image_index: 8,
        split: 'val',
        objects: [{ shape: 'cylinder', color: 'cyan', material: 'rubber', size: 'small', '3d_coords': [0.5, 0.5, 0.35], rotation: 0 }],
      },
    ],
  };

  test("a scene of 10,000 objects is refused with the limit's sentence; the loaded scenes stay, and a chat turn is still answered", async ({ page }) => {
    await openPresenter(page, 'test-tiny-clip', '&clevr=1:0');
    const view = page.getByTestId('clevr-view');
    const fileInput = view.getByLabel('Load CLEVR scenes (JSON)');
    await fileInput.setInputFiles({ name: 'CLEVR_val_scenes.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(good)) });
    await expect(view.getByTestId('clevr-scene-source')).toHaveText('CLEVR_val_scenes.json: scene 1 of 2');
    await expect(view.getByTestId('clevr-picture')).toHaveAttribute('data-drawn', 'true');

    // The file: one scene of 10,000 valid objects (1.3 MB), made here.
    const object = (i: number) => ({
      shape: 'cube',
      color: 'red',
      material: 'rubber',
      size: 'small',
      '3d_coords': [-3 + (i % 100) * 0.06, -3 + Math.floor(i / 100) * 0.06, 0.25],
      rotation: 0,
    });
    const crowded = { scenes: [{ image_index: 0, objects: Array.from({ length: 10_000 }, (_, i) => object(i)) }] };
    await fileInput.setInputFiles({ name: 'crowded_scenes.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(crowded)) });
    await expect(view.getByTestId('clevr-file-error')).toHaveText(
      `crowded_scenes.json, scene 0 (image_index 0) has 10,000 objects; a scene may have at most ${MAX_SCENE_OBJECTS} (CLEVR's generator places 3 to 10), since each one is drawn. Remove objects or split the scene, then load the file again. The scenes on screen are kept.`,
    );
    await expect(view.getByTestId('clevr-scene-source')).toHaveText('CLEVR_val_scenes.json: scene 1 of 2');
    await expect(view.getByTestId('clevr-file-progress')).toHaveCount(0);
    await expect(view.getByTestId('clevr-picture')).toHaveAttribute('data-drawn', 'true');

    await page.getByRole('button', { name: 'Chat', exact: true }).click();
    await sendText(page, 'I love hiking in the mountains');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
  });

  test('a large scene file is read in a worker of its own with its progress shown, then its scenes replace the generated ones', async ({ page }) => {
    await openReady(page, 'test-tiny-clip', '&clevr=1:0');
    const view = page.getByTestId('clevr-view');
    await expect(view.getByTestId('clevr-caption')).toHaveText(dialog.caption);
    // 4,000 generated scenes of 3 to 10 objects, with pixels and relations as CLEVR writes them: about 6 MB.
    const scenes = Array.from({ length: 4000 }, (_, i) => generateScene(9, i, { split: 'val' }));
    const big = Buffer.from(clevrScenesJson(scenes));
    expect(big.byteLength).toBeGreaterThan(5e6);
    // Every text the progress line shows, however briefly.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { progressSeen: string[] }).progressSeen = seen;
      new MutationObserver(() => {
        const text = document.querySelector('[data-testid="clevr-file-progress"]')?.textContent;
        if (text && seen.at(-1) !== text) seen.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await view.getByLabel('Load CLEVR scenes (JSON)').setInputFiles({ name: 'big_scenes.json', mimeType: 'application/json', buffer: big });
    await expect(view.getByTestId('clevr-scene-source')).toHaveText('big_scenes.json: scene 1 of 4000');
    await expect(view.getByTestId('clevr-file-progress')).toHaveCount(0);
    await expect(view.getByTestId('clevr-file-error')).toHaveCount(0);
    const firstScene = dialogOpenings(scenes[0]!, SEED).openings[0]!;
    await expect(view.getByTestId('clevr-caption')).toHaveText(firstScene.caption.text);
    await expect(view.getByTestId('clevr-picture')).toHaveAttribute('data-drawn', 'true');
    const seen = await page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen);
    expect(seen[0]).toBe(`Reading big_scenes.json: 0.0 of ${(big.byteLength / 1e6).toFixed(1)} MB…`);
  });
});
