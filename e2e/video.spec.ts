import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Page, expect, test } from '@playwright/test';
import { asset, choosePhotos, exportConversationAs, openPresenter, openReady, sendText, storedMessages, modelReady } from './helpers';

// Clips of the generated AVSD test split (npm run avsd:generate -- --split test --webm), never trained
// or chosen on: test-1-15 shows a green square and someone says "watch closely" loudly at the start.
const SPEECH_CLIP = { name: 'speech-test-1-15.webm', mimeType: 'video/webm', buffer: asset('video/speech-test-1-15.webm') };

const video = (page: Page) => page.getByTestId('shared-video');

async function shareVideo(page: Page, file: { name: string; mimeType: string; buffer: Buffer }, text: string): Promise<void> {
  await choosePhotos(page, file);
  await expect(page.getByRole('list', { name: 'Video to send' }).getByRole('img')).toHaveCount(1, { timeout: 30_000 });
  await sendText(page, text);
}

test.describe('videos in the conversation', () => {
  test('a shared video is described, a question that needs its sound is answered with the right candidate first, and a reload keeps it', async ({ page }) => {
    test.setTimeout(240_000);
    // Every call the page makes of the model worker, by method, from the moment the turn is sent.
    await page.addInitScript(() => {
      const calls: string[] = [];
      (window as unknown as { workerCalls: string[] }).workerCalls = calls;
      const post = Object.getOwnPropertyDescriptor(Worker.prototype, 'postMessage')!.value as (this: Worker, ...args: unknown[]) => void;
      Worker.prototype.postMessage = function (this: Worker, message: unknown, ...rest: unknown[]) {
        if (typeof message === 'object' && message !== null && 'type' in message) calls.push(String(message.type));
        post.call(this, message, ...rest);
      };
    });
    await openReady(page);
    await page.evaluate(() => (window as unknown as { workerCalls: string[] }).workerCalls.splice(0));
    await shareVideo(page, SPEECH_CLIP, 'does anyone speak?');
    const replies = page.getByRole('listitem', { name: 'The system replied' });
    await expect(replies).toHaveCount(1, { timeout: 60_000 });
    // One path: the video is watched (its sound heard ahead), then the question is a turn like any other, one reply call
    // (the photo path's sessions, made when a file is attached, and warm-up are not the turn's).
    const calls = await page.evaluate(() =>
      (window as unknown as { workerCalls: string[] }).workerCalls.filter((type) => !['warmUp', 'cancel', 'preparePhotoPath'].includes(type)),
    );
    expect(calls).toEqual(['hearVideo', 'analyzeVideo', 'reply']);
    await expect(video(page).getByTestId('video-description')).toHaveText('a green square; someone speaks at the start');
    await expect(replies.first().getByTestId('reply-text')).toHaveText('yes, someone says a few words');

    await page.getByRole('button', { name: 'Inspector', exact: true }).click();
    const inspector = page.getByTestId('inspector-video');
    await expect(inspector.getByTestId('video-frame')).toHaveCount(8);
    await expect(inspector.getByTestId('video-frame').first()).toContainText('green square');
    await expect(inspector.getByTestId('audio-track')).toContainText('speech (Silero VAD)');
    await expect(inspector.getByTestId('video-candidates').getByRole('listitem')).toHaveCount(10);
    await expect(inspector.getByTestId('video-candidates').getByRole('listitem').first()).toContainText('1. yes, someone says a few words');
    await expect(inspector).toContainText('top 10 of 100 candidates');

    await page.reload();
    await modelReady(page);
    await expect(video(page).getByTestId('video-description')).toHaveText('a green square; someone speaks at the start');
    await expect(
      video(page)
        .getByRole('button', { name: /^Play: Shared video, 4\.0 s/ })
        .locator('img'),
    ).toBeVisible();
    // The stored analysis answers a follow-up after the reload, with the earlier round as history.
    await sendText(page, 'what is the sound?');
    await expect(replies).toHaveCount(2, { timeout: 60_000 });
    await expect(replies.nth(1).getByTestId('reply-text')).toHaveText('someone speaking');
    // The stored file plays.
    await video(page)
      .getByRole('button', { name: /^Play:/ })
      .click();
    await expect(video(page).locator('video')).toHaveJSProperty('paused', false);
  });

  test('files that cannot be shared as videos each get a sentence, and the conversation is kept', async ({ page }) => {
    test.setTimeout(180_000);
    await openPresenter(page);
    await sendText(page, 'hello there');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
    const cases: [{ name: string; mimeType: string; buffer: Buffer }, string][] = [
      [
        { name: 'broken.mp4', mimeType: 'video/mp4', buffer: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 251)) },
        'broken.mp4 could not be opened as a video: it is damaged or not a video file.',
      ],
      [
        { name: 'old-camera.mp4', mimeType: 'video/mp4', buffer: asset('video/mpeg4-part2.mp4') },
        'This browser cannot decode old-camera.mp4: it is an MP4/MOV file, but its video codec',
      ],
      [{ name: 'voice.webm', mimeType: 'video/webm', buffer: asset('video/sound-only.webm') }, 'voice.webm has sound but no picture.'],
      [{ name: 'voice.wav', mimeType: 'audio/wav', buffer: Buffer.from('RIFF') }, 'voice.wav is a sound file with no picture.'],
      [
        { name: 'lecture.webm', mimeType: 'video/webm', buffer: asset('video/two-hours.webm') },
        'lecture.webm is 2 h 0 min long; a shared video may be up to 60 s.',
      ],
      [{ name: 'blink.webm', mimeType: 'video/webm', buffer: asset('video/one-frame.webm') }, 'blink.webm is 0 seconds long, so there is nothing to watch.'],
      [{ name: 'empty.mov', mimeType: 'video/quicktime', buffer: Buffer.alloc(0) }, 'empty.mov is empty (0 bytes)'],
    ];
    // Over 100 MB: a sparse file, handed over by path (Playwright copies buffers over 50 MB no further).
    const huge = join(mkdtempSync(join(tmpdir(), 'video-')), 'holiday.mp4');
    truncateSync((writeFileSync(huge, ''), huge), 101 * 1024 * 1024);
    await choosePhotos(page, huge);
    await expect(page.getByRole('alert').filter({ hasText: 'holiday.mp4 is 101 MB, over the 100 MB a shared video may be.' })).toBeVisible();
    for (const [file, message] of cases) {
      await choosePhotos(page, file);
      await expect(page.getByRole('alert').filter({ hasText: message })).toBeVisible({ timeout: 30_000 });
      await expect(page.getByRole('list', { name: 'Video to send' })).toHaveCount(0);
    }
    await expect(page.getByRole('listitem', { name: 'You said' })).toHaveText(['hello there']);
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);

    // A video without a sound track is shared, and says so.
    await shareVideo(page, { name: 'silent.webm', mimeType: 'video/webm', buffer: asset('video/silent.webm') }, 'is there any sound?');
    await expect(page.getByRole('status').filter({ hasText: 'silent.webm has no sound track' })).toBeVisible();
    await expect(video(page).getByTestId('video-description')).toHaveText('a green square; no sound track', { timeout: 60_000 });
    await expect(page.getByRole('listitem', { name: 'The system replied' }).nth(1).getByTestId('reply-text')).toHaveText('no, it is silent');

    // Undoing the video turn puts its text and the video back in the composer.
    await page.getByRole('button', { name: 'Undo last turn' }).click();
    await expect(
      page.getByRole('status').filter({ hasText: 'Removed your last turn and its reply. Its text and video are back in the message box.' }),
    ).toBeVisible();
    await expect(page.getByRole('list', { name: 'Video to send' }).getByRole('img', { name: /^Video to send: silent\.webm, 4\.0 s$/ })).toBeVisible({
      timeout: 30_000,
    });
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('is there any sound?');
    await expect(video(page)).toHaveCount(0);
  });

  test('a picture too large to decode and damaged WebM files are each told apart from "no picture" and from an unplayable codec', async ({ page }) => {
    test.setTimeout(180_000);
    await openPresenter(page);
    // coffee-pan.webm writes its size in two bytes each (PixelWidth b0 82 01 90, PixelHeight ba 82 01 2c): claim 65535 x 65535.
    const huge = Buffer.from(asset('video/coffee-pan.webm'));
    const width = huge.indexOf(Buffer.from([0xb0, 0x82, 0x01, 0x90]));
    const height = huge.indexOf(Buffer.from([0xba, 0x82, 0x01, 0x2c]));
    expect(width).toBeGreaterThan(0);
    expect(height).toBeGreaterThan(0);
    huge.writeUInt16BE(0xffff, width + 2);
    huge.writeUInt16BE(0xffff, height + 2);
    const speech = asset('video/speech-test-1-15.webm');
    const scrambled = Buffer.from(speech);
    for (let i = 600; i < scrambled.length; i++) scrambled[i] = (i * 37) % 251;
    const cases: [{ name: string; mimeType: string; buffer: Buffer }, string][] = [
      [
        { name: 'giant.webm', mimeType: 'video/webm', buffer: huge },
        'giant.webm cannot be decoded: its file says the picture is 65535 × 65535 pixels, larger than this browser can decode',
      ],
      [
        { name: 'cut.webm', mimeType: 'video/webm', buffer: speech.subarray(0, 2000) },
        'cut.webm is damaged: it is cut short: it should run to byte 28048, but the file has 2000 bytes.',
      ],
      [{ name: 'scrambled.webm', mimeType: 'video/webm', buffer: scrambled }, 'scrambled.webm is damaged: there is unreadable data at byte 666.'],
    ];
    for (const [file, message] of cases) {
      await choosePhotos(page, file);
      const alert = page.getByRole('alert').filter({ hasText: message });
      await expect(alert).toBeVisible({ timeout: 30_000 });
      await expect(alert).not.toContainText('no picture');
      await expect(alert).not.toContainText('HEVC');
      await expect(page.getByRole('list', { name: 'Video to send' })).toHaveCount(0);
    }
  });

  test('a video of a real scene is described by the object detector, not as coloured shapes', async ({ page }) => {
    test.setTimeout(240_000);
    // The presenter view: each answer's developer line says where it came from.
    await openPresenter(page);
    // coffee-pan.webm: e2e/assets/coffee.jpg panned for 3 s, with espeak-ng saying "good morning" (SOURCES.md).
    await shareVideo(page, { name: 'coffee-pan.webm', mimeType: 'video/webm', buffer: asset('video/coffee-pan.webm') }, '');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1, { timeout: 60_000 });
    await expect(video(page).getByTestId('video-description')).toHaveText('a cup; someone speaks at the start');
    const replies = page.getByRole('listitem', { name: 'The system replied' });
    // Questions about sound carry over from the generated clips to a real one.
    await sendText(page, 'does anyone speak?');
    await expect(replies.nth(1).getByTestId('reply-text')).toHaveText('yes, someone says a few words', { timeout: 60_000 });
    // What is in a real video is said from the detector's frames, not ranked from the generated clips' answers.
    await sendText(page, 'what is in the video?');
    await expect(replies.nth(2).getByTestId('reply-text')).toHaveText('A cup.', { timeout: 60_000 });
    await expect(replies.nth(2).getByTestId('reply-meta')).toContainText('from what the object detector found in its frames');

    // tone-coffee.webm: the same pan with a 440 Hz tone all through it, which lasts rather than starts.
    await shareVideo(page, { name: 'tone-coffee.webm', mimeType: 'video/webm', buffer: asset('video/tone-coffee.webm') }, "what's in this clip?");
    await expect(replies).toHaveCount(4, { timeout: 60_000 });
    await expect(video(page).nth(1).getByTestId('video-description')).toHaveText('a cup; a quiet steady tone throughout');
    await expect(replies.nth(3).getByTestId('reply-text')).toHaveText('A cup.');
  });

  test('a reload while the video is being watched: the turn is watched again and answered after the reload, once', async ({ page }) => {
    test.setTimeout(300_000);
    await openReady(page);
    await shareVideo(page, SPEECH_CLIP, 'does anyone speak?');
    // Reloaded as soon as the turn is stored, while its video is still being watched (as the probe did, 1.5 s after Enter).
    await expect.poll(async () => (await storedMessages(page)).some((m) => m.elements.some((e) => e.kind === 'video'))).toBe(true);
    await expect(video(page).getByTestId('video-description')).toHaveText('Watching the video…');
    await page.reload();
    await modelReady(page);
    const replies = page.getByRole('listitem', { name: 'The system replied' });
    await expect(
      page
        .getByRole('status')
        .filter({ hasText: 'The page was reloaded before your last turn was answered, so it is answered now: the video is watched again.' }),
    ).toBeVisible();
    await expect(replies).toHaveCount(1, { timeout: 90_000 });
    await expect(video(page).getByTestId('video-description')).toHaveText('a green square; someone speaks at the start');
    await expect(replies.first().getByTestId('reply-text')).toHaveText('yes, someone says a few words');
    // Answered once: a second reload shows the same exchange and asks nothing again.
    await expect.poll(async () => (await storedMessages(page)).filter((m) => m.role === 'assistant').length).toBe(1);
    await page.reload();
    await modelReady(page);
    await expect(video(page).getByTestId('video-description')).toHaveText('a green square; someone speaks at the start');
    await expect(replies).toHaveCount(1);
    await expect(page.getByRole('status').filter({ hasText: 'answered now' })).toHaveCount(0);
  });

  test('an export says the video was left out: in its notice, and in the text line that stands for it', async ({ page }) => {
    test.setTimeout(240_000);
    await openPresenter(page);
    await shareVideo(page, { name: 'silent.webm', mimeType: 'video/webm', buffer: asset('video/silent.webm') }, '');
    await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1, { timeout: 60_000 });
    const { name, files } = await exportConversationAs(page, 'Markdown');
    await expect(
      page.getByRole('alert').filter({
        hasText: `Saved ${name} (Markdown): 2 messages, 0 images. 1 video was left out: the MMDialog and Markdown formats hold texts and images only`,
      }),
    ).toBeVisible();
    const md = new TextDecoder().decode(files[`${name.replace(/\.zip$/, '')}/conversation.md`]);
    expect(md).toContain('A video was shared here and is not in this export: silent.webm');
    expect(md).toContain('What was seen: a green square; no sound track');
  });
});

test('Cancel while a video is being watched stops it quietly, and the turn and the video stay', async ({ page }) => {
  await openReady(page);
  await shareVideo(page, SPEECH_CLIP, 'does anyone speak?');
  await expect(video(page).getByTestId('video-description')).toHaveText('Watching the video…');
  await video(page).getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Watching the video stopped, as asked. Your message and the video are kept.' })).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(video(page).getByTestId('video-description')).toHaveText('Not watched. Share it again to have it watched.');
  await expect(page.getByRole('listitem', { name: 'You said' })).toContainText('does anyone speak?');
  await expect.poll(async () => (await storedMessages(page)).some((m) => m.elements.some((e) => e.kind === 'video'))).toBe(true);
  // The chat answers the next turn as before.
  await sendText(page, 'hello');
  await expect(page.getByRole('listitem', { name: 'The system replied' })).toHaveCount(1);
});
