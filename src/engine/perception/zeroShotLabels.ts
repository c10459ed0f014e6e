import { COCO_CLASSES } from '../detection/cocoClasses';
import { countedNoun } from '../detection/groundedCaption';
import { dot, l2Normalize } from '../retrieval/vectors';

/** "a photo of a dog": one prompt per COCO class, in class order, that the image tower's zero-shot vote compares a photo with. */
export const ZERO_SHOT_PROMPTS: readonly string[] = COCO_CLASSES.map((label) => `a photo of ${countedNoun(label, 1)}`);

/**
 * The rank of each COCO label (1 = nearest) by the cosine between the photo's image embedding and the
 * tower's own text embedding of the label's prompt: CLIP's zero-shot classification (Radford et al.
 * 2021, §3.1.2), used as a rank so no temperature has to be chosen. Ties keep class order.
 */
export function zeroShotRanks(imageEmbedding: Float32Array, promptEmbeddings: readonly Float32Array[]): Map<string, number> {
  if (promptEmbeddings.length !== COCO_CLASSES.length)
    throw new Error(`zeroShotRanks: ${COCO_CLASSES.length} prompt embeddings are needed, not ${promptEmbeddings.length}.`);
  const image = l2Normalize(imageEmbedding);
  const order = promptEmbeddings
    .map((prompt, index) => ({ index, cosine: dot(image, l2Normalize(prompt)) }))
    .sort((a, b) => b.cosine - a.cosine || a.index - b.index);
  return new Map(order.map(({ index }, position) => [COCO_CLASSES[index]!, position + 1]));
}
