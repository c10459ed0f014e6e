/** Rows of a batch laid end to end, as a model's [n, ...] input reads them. */
export function int64Rows(rows: readonly Int32Array[], width: number): BigInt64Array {
  const out = new BigInt64Array(rows.length * width);
  rows.forEach((r, i) => r.forEach((v, j) => (out[i * width + j] = BigInt(v))));
  return out;
}

export function float32Rows(rows: readonly Float32Array[], width: number): Float32Array {
  const out = new Float32Array(rows.length * width);
  rows.forEach((r, i) => out.set(r, i * width));
  return out;
}
