/** A fetch made once and shared, made again on the next call after it failed (a flaky network at the booth). */
export function fetchedOnce<T>(fetchIt: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => {
    if (!pending) {
      const loading = fetchIt();
      pending = loading;
      loading.catch(() => {
        if (pending === loading) pending = null;
      });
    }
    return pending;
  };
}
