import { describe, expect, it } from 'vitest';
import { planDatasetFiles } from '../datasets/datasetFiles';

describe('planDatasetFiles', () => {
  it('finds MMDialog splits, the catalogue, utterance files and images, and says why other files are left out', () => {
    const plan = planDatasetFiles([
      'train/conversations.json',
      'test/conversations.json',
      'media.json',
      'utterances.txt',
      'images/cat.jpg',
      'images/dog.PNG',
      'more/cat.webp',
      'notes.pdf',
      '.DS_Store',
      '__MACOSX/x.jpg',
      'bad name!.jpg',
    ]);
    expect(plan.conversations).toEqual([
      { path: 'test/conversations.json', split: 'test' },
      { path: 'train/conversations.json', split: 'train' },
    ]);
    expect(plan.mediaCatalogue).toBe('media.json');
    expect(plan.textFiles).toEqual(['utterances.txt']);
    expect([...plan.images.entries()]).toEqual([
      ['cat', 'images/cat.jpg'],
      ['dog', 'images/dog.PNG'],
    ]);
    expect(plan.skipped).toEqual([
      { path: 'bad name!.jpg', reason: 'its name cannot be a media key (use letters, digits, "-", "_" or ".")' },
      { path: 'more/cat.webp', reason: 'another image has the same name (images/cat.jpg)' },
      { path: 'notes.pdf', reason: '.pdf files are not part of a dataset' },
    ]);
  });
});
