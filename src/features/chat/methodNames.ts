/** How the response methods are named on the page. */
export const METHOD_NAMES: Record<string, string> = {
  depp: 'trained heads (DE++)',
  'clip-map': 'clip-map',
  'clip-sim': 'CLIP similarity',
  bm25: 'BM25',
  tfidf: 'tf-idf',
  random: 'random',
};
