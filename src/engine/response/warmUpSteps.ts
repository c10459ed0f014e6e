/**
 * The steps of warming after Ready, in the order the page asks for them: the text path first (a
 * visitor's first turn is most often a sample prompt), then the photo path. Each is one small request
 * that the worker runs only when no visitor's request waits (requestHandler.ts); ReplySession.warmUp
 * says what each does. Its own module, so the page reads the list without the engine.
 */
export const WARM_UP_STEPS = ['reply-models', 'text-turn', 'image-ranking', 'image-tower', 'detector', 'photo-check', 'captioner', 'caption-bank'] as const;
export type WarmUpStep = (typeof WARM_UP_STEPS)[number];

/**
 * The steps that make a photo's own sessions (image tower, detector, photo check): what the page asks
 * for as soon as a visitor starts to share a photo (preparePhotoPath), so the photo's turn finds them made.
 */
export const PHOTO_PATH_STEPS = ['image-tower', 'detector', 'photo-check'] as const satisfies readonly WarmUpStep[];
