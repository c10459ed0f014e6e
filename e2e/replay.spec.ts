import { type Page, expect, test } from '@playwright/test';
import { type MmRelevance, mmRelevance } from '../src/engine/metrics/dialogMetrics';
import { recallAt1, sessionMeans } from '../src/engine/metrics/sessionMetrics';
import type { ResponseScore } from '../src/engine/response/evaluate';
import { evaluateSession } from '../src/engine/response/session';
import { l2Normalize } from '../src/engine/retrieval/vectors';
import { formatMmRelevance, formatPercent, formatRecall } from '../src/shared/scores/metricText';
import { type DialogBenchData, loadDialogBenchData } from '../src/node/bench/benchDialog';
import { asset, openPresenter, sendText } from './helpers';

/** The dialogue replayed: 4 turns of the demo test split, one reference turn with a text and an image. */
const DIALOGUE_ID = '3702';

/** The pack, pool and test split exactly as `npm run bench -- dialog --pack test-tiny-clip --split test` loads them. */
let bench: Promise<DialogBenchData> | null = null;
const benchData = () => (bench ??= loadDialogBenchData({ packId: 'test-tiny-clip', dataDir: 'public/dialogues', split: 'test', poolDir: 'public/pool' }));

/** The three figures of a turn as the page formats them, from the engine's score. */
function shown(score: Pick<ResponseScore, 'ranks'> & { mmRelevance: Pick<MmRelevance, 'f1'>; intentF1: { f1: number } }) {
  return {
    mm: formatMmRelevance(score.mmRelevance.f1),
    intent: formatPercent(score.intentF1.f1),
    text: score.ranks.some((r) => r.modality === 'text') ? formatRecall(recallAt1(score.ranks, 'text')) : null,
    image: score.ranks.some((r) => r.modality === 'image') ? formatRecall(recallAt1(score.ranks, 'image')) : null,
  };
}

async function shownOnPage(scores: ReturnType<Page['getByTestId']>) {
  const recall = async (m: string) => {
    const el = scores.getByTestId(`score-recall-${m}`);
    return (await el.count()) ? (await el.innerText()).replace(`${m} `, '') : null;
  };
  return {
    mm: await scores.getByTestId('score-mm-relevance').innerText(),
    intent: await scores.getByTestId('score-intent-f1').innerText(),
    text: await recall('text'),
    image: await recall('image'),
  };
}

/** The view at a laptop's, a projector's and a phone's size, for review (e2e/screenshots/ is not committed). */
async function saveScreenshots(page: Page, view: string): Promise<void> {
  const original = page.viewportSize();
  for (const [size, viewport] of Object.entries({
    laptop: { width: 1440, height: 900 },
    projector: { width: 1280, height: 720 },
    phone: { width: 390, height: 844 },
  })) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: `e2e/screenshots/${view}-${size}.png` });
  }
  if (original) await page.setViewportSize(original);
}

test.describe('live metrics against references', () => {
  test('a replayed test dialogue shows each turn beside the reference with MM-Relevance, Intent F1 and R@1, and running means that end on the benchmark figures', async ({
    page,
  }) => {
    await openPresenter(page);
    await sendText(page, 'a conversation of my own');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);

    await page.getByRole('button', { name: 'Replay a reference dialogue' }).click();
    await expect(page.getByRole('combobox', { name: 'Split' })).toHaveValue('test');
    const chooser = page.getByRole('combobox', { name: 'Dialogue' });
    await expect(chooser.getByRole('option')).toHaveCount(201); // "Random" and the split's 200 dialogues
    await chooser.selectOption(DIALOGUE_ID);
    await page.getByRole('combobox', { name: 'Speed' }).selectOption('fast');
    await page.getByRole('button', { name: 'Start replay' }).click();
    await expect(page.getByTestId('replay-status')).toHaveText(`Finished: 3 reference turns of test dialogue ${DIALOGUE_ID} scored.`);

    const turns = page.getByTestId('replayed-turn');
    await expect(turns).toHaveCount(3);
    await expect(page.getByTestId('replay-context')).toHaveText("hey stranger! how's the new kitten??");
    await expect(turns.first().getByTestId('replay-reference')).toContainText('as cute as ever 🥺');
    await expect(turns.first().getByTestId('replay-reference').getByRole('img')).toHaveCount(1);
    await expect(turns.first().getByRole('region', { name: 'The engine’s reply' })).toContainText('clip-sim · intent majority');

    // The same turns replayed in Node by a fresh reply session, as the benchmark runs them.
    const data = await benchData();
    const record = data.records.find((r) => r.id === DIALOGUE_ID)!;
    const session = data.newSession();
    const figures = [];
    for (let t = 1; t < record.turns.length; t++) {
      const { reply, score } = await session.replayTurn(record, t, { method: 'clip-sim' });
      figures.push({ mmRelevance: score.mmRelevance.f1, intentF1: score.intentF1.f1, ranks: score.ranks });
      const turn = turns.nth(t - 1);
      await expect(turn.getByTestId('replay-reply').locator('p')).toHaveText(reply.elements.filter((e) => e.kind === 'text').map((e) => e.text));
      expect(await shownOnPage(turn.getByTestId('turn-scores'))).toEqual(shown(score));
    }
    // The second reference turn has a text and an image: both are ranked among 999 negatives.
    await expect(turns.first().getByTestId('score-recall-image')).toBeVisible();

    // Running means: the means of the turns above, and the benchmark's figures for this one dialogue.
    const result = await evaluateSession(data.newSession(), [record], { method: 'clip-sim' });
    const means = sessionMeans(figures);
    expect(means.mmRelevance).toBeCloseTo(result.mmRelevance, 10);
    const panel = page.getByTestId('session-metrics');
    await expect(panel.getByRole('heading')).toHaveText('Running means over 3 scored turns');
    await expect(panel.getByTestId('mean-mm-relevance')).toHaveText(formatMmRelevance(result.mmRelevance));
    await expect(panel.getByTestId('mean-intent-f1')).toHaveText(formatPercent(result.intentF1));
    await expect(panel.getByTestId('mean-recall-text')).toHaveText(formatRecall(result.recall.text.recallAt[1]!));
    await expect(panel.getByTestId('mean-recall-image')).toHaveText(formatRecall(result.recall.image.recallAt[1]!));
    const chart = panel.getByRole('img', { name: /^Running means after each turn/ });
    await expect(chart.locator('[data-series="MM-Relevance"] circle')).toHaveCount(3);
    await expect(chart).toHaveAttribute('aria-label', new RegExp(`MM-Relevance ${formatMmRelevance(result.mmRelevance).replace('.', '\\.')},`));

    await saveScreenshots(page, 'replay');

    // The person's own conversation is still there.
    await page.getByRole('button', { name: 'Chat', exact: true }).click();
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveText('a conversation of my own');
  });

  test('a replay can be paused, stepped one turn at a time and stopped', async ({ page }) => {
    await openPresenter(page);
    await page.getByRole('button', { name: 'Replay a reference dialogue' }).click();
    await page.getByRole('combobox', { name: 'Split' }).selectOption('valid');
    await expect(page.getByRole('combobox', { name: 'Dialogue' }).getByRole('option')).toHaveCount(201);
    await page.getByRole('combobox', { name: 'Speed' }).selectOption('slow'); // 3 s before the first reply: time to pause
    await page.getByRole('button', { name: 'Start replay' }).click(); // a random valid dialogue
    await page.getByRole('button', { name: 'Pause' }).click();
    const status = page.getByTestId('replay-status');
    await expect(status).toHaveText(/^Paused valid dialogue \d+: 1 of \d turns shown\.$/);
    await expect(page.getByTestId('replay-context')).toBeVisible();
    await expect(page.getByTestId('replayed-turn')).toHaveCount(0);
    await page.getByRole('button', { name: 'Step' }).click();
    await expect(page.getByTestId('replayed-turn')).toHaveCount(1);
    await expect(status).toHaveText(/^Paused valid dialogue \d+: 2 of \d turns shown\.$/);
    await expect(page.getByTestId('replayed-turn').getByTestId('score-mm-relevance')).toHaveText(/^\d+\.\d$/);
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect(page.getByTestId('replayed-turn')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Start replay' })).toBeEnabled();
    // The stepped turn stays in the session's running means.
    await expect(page.getByTestId('session-metrics').getByRole('heading')).toHaveText('Running means over 1 scored turn');
  });

  test('free chat: what the visitor would have answered becomes the reference, and MM-Relevance is computed against it', async ({ page }) => {
    await openPresenter(page);
    await sendText(page, 'we had pizza by the sea');
    const reply = page.getByRole('listitem', { name: 'The system replied' });
    await expect(reply).toHaveCount(1);
    // Without a reference the reply carries its CLIP relevance to the context, labelled as not MM-Relevance.
    await expect(reply.getByTestId('reply-meta')).toContainText('(not MM-Relevance)');
    await expect(reply.getByTestId('turn-scores')).toHaveCount(0);

    await reply.getByRole('button', { name: 'What would you have answered?' }).click();
    const answer = 'that sounds like a perfect evening';
    await reply.getByRole('textbox', { name: 'What would you have answered?' }).fill(answer);
    await reply.getByRole('button', { name: 'Score the reply against it' }).click();
    const scores = reply.getByTestId('turn-scores');
    await expect(scores).toBeVisible();
    await expect(reply.getByTestId('visitor-reference')).toContainText(answer);
    await expect(scores.getByTestId('score-recall')).toHaveText('needs a reference dialogue’s negatives');

    // The engine's own computation in Node: the reply's text is a pool row, the answer is encoded by the same pack.
    const data = await benchData();
    const replyTexts = await reply.getByTestId('reply-text').allInnerTexts();
    await expect(reply.getByTestId('reply-image')).toHaveCount(0);
    const { textMatrix } = data.pool;
    const predicted = replyTexts.map((t) => data.pool.texts.indexOf(t)).map((r) => textMatrix.data.subarray(r * textMatrix.dim, (r + 1) * textMatrix.dim));
    const [encoded] = await data.encoder.encodeTexts([answer]);
    const expected = mmRelevance(predicted, [l2Normalize(encoded!)]);
    expect(await shownOnPage(scores)).toEqual({
      mm: formatMmRelevance(expected.f1),
      intent: formatPercent(replyTexts.length === 1 ? 100 : 200 / (replyTexts.length + 1)),
      text: null,
      image: null,
    });

    // It counts in the running means, and a new answer (a photo this time) replaces it there.
    const panel = page.getByTestId('session-metrics');
    await expect(panel.getByRole('heading')).toHaveText('Running means over 1 scored turn (1 from your answers)');
    await expect(panel.getByTestId('mean-mm-relevance')).toHaveText(formatMmRelevance(expected.f1));
    await reply.getByRole('button', { name: 'Answer differently' }).click();
    const chooser = page.waitForEvent('filechooser');
    await reply.getByRole('button', { name: 'Add a photo' }).click();
    await (await chooser).setFiles({ name: 'meadow.jpg', mimeType: 'image/jpeg', buffer: asset('meadow.jpg') });
    await reply.getByRole('button', { name: 'Score the reply against it' }).click();
    await expect(reply.getByRole('img', { name: /^Your answer's photo: / })).toBeVisible();
    await expect(scores.getByTestId('score-intent-f1')).toHaveText('0.0%'); // a text reply against a photo
    await expect(panel.getByRole('heading')).toHaveText('Running means over 1 scored turn (1 from your answers)');
    const photoMm = await scores.getByTestId('score-mm-relevance').innerText();
    await expect(panel.getByTestId('mean-mm-relevance')).toHaveText(photoMm);

    await saveScreenshots(page, 'chat-visitor-reference');

    // The answer and its scores are kept with the conversation.
    await page.reload();
    await expect(page.getByRole('listitem', { name: 'The system replied' }).getByTestId('score-mm-relevance')).toHaveText(photoMm);
    await expect(page.getByRole('listitem', { name: 'The system replied' }).getByRole('img', { name: /^Your answer's photo: / })).toBeVisible();
  });
});
