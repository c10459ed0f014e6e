/**
 * The pack the demo opens with when nobody chose one: the first of these that is present, else the
 * first pack listed. Shared by the page and the build, which keeps this pack's files for offline use.
 */
const DEFAULT_PACK_ORDER: readonly string[] = ['mini-clip', 'clip-vit-base-patch32', 'test-tiny-clip'];

export function defaultPackId(ids: readonly string[]): string | undefined {
  return DEFAULT_PACK_ORDER.find((id) => ids.includes(id)) ?? ids[0];
}
