/**
 * IEEE half floats for the fp16 variants whose inputs and outputs are float16 (onnxruntime-web
 * hands them over as Uint16Array bits). Hand-written: Float16Array is not in every browser or in
 * Node 20, and no maintained package the app already uses converts arrays.
 */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function float32ToFloat16Bits(values: Float32Array): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) {
    f32[0] = values[i]!;
    const x = u32[0]!;
    const sign = (x >>> 16) & 0x8000;
    const exp = (x >>> 23) & 0xff;
    const mant = x & 0x7fffff;
    if (exp === 0xff) {
      out[i] = sign | 0x7c00 | (mant ? 0x200 : 0);
      continue;
    }
    const e = exp - 127 + 15;
    if (e >= 0x1f) {
      out[i] = sign | 0x7c00;
    } else if (e <= 0) {
      if (e < -10) {
        out[i] = sign;
      } else {
        // Subnormal: shift in the implicit bit, round half to even.
        const m = mant | 0x800000;
        const shift = 14 - e;
        let half = m >>> shift;
        const rest = m & ((1 << shift) - 1);
        const mid = 1 << (shift - 1);
        if (rest > mid || (rest === mid && half & 1)) half++;
        out[i] = sign | half;
      }
    } else {
      let half = (e << 10) | (mant >>> 13);
      const rest = mant & 0x1fff;
      if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++;
      out[i] = sign | half;
    }
  }
  return out;
}

export function float16BitsToFloat32(bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) {
    const h = bits[i]!;
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >>> 10) & 0x1f;
    const mant = h & 0x3ff;
    if (exp === 0) out[i] = sign * mant * 2 ** -24;
    else if (exp === 0x1f) out[i] = mant ? NaN : sign * Infinity;
    else out[i] = sign * (1 + mant / 1024) * 2 ** (exp - 15);
  }
  return out;
}
