import { I32, MEMARG, OP, SIMD_OP, V128, get, i32, loopUntil, set, simd, singleFunctionModule } from './wasmEmit';

/**
 * The bytes of the int8 scoring kernel (see wasmEmit.ts). In WAT it reads:
 *
 *   (import "env" "memory" (memory 1))
 *   (func (export "scores8") (param $query i32) (param $matrix i32) (param $rows i32) (param $stride i32)
 *                            (param $scales i32) (param $out i32)
 *     ;; out[r] = f32(sum_j matrix[r*stride + j] * query[j]) * scales[r] for r in [0, rows):
 *     ;; int8 rows, an int16 query (the query keeps its precision: only the rows are coarse), the dot
 *     ;; product summed exactly in i32 (rows extended to i16x8, i32x4.dot_i16x8_s; |sum| < 127 * 32767 *
 *     ;; dim, which fits i32 up to dim 516), then one f32 conversion and one f32 multiply. stride is a
 *     ;; multiple of 16 (rows padded with 0); the query is 2 * stride bytes.
 *     ;; Four rows at a time share each load of the query, then one row at a time.
 *   )
 *
 * Integer sums are exact, so any correct implementation (the JS reference, a GPU shader) gets the very
 * same scores: out = fround(fround(dot) * scale).
 */

const QUERY = 0,
  MATRIX = 1,
  ROWS = 2,
  STRIDE = 3,
  SCALES = 4,
  OUT = 5;
const ROW = 6,
  J = 7;
const PTR = 8; // PTR + r: byte offset of the r-th row of the current block (four i32)
const ACC = 12; // ACC + r: its i32x4 accumulator (four v128)
const QL = 16,
  QH = 17,
  RV = 18; // 16 values of the query as two i16x8, and a row's 16 bytes (v128)
const LOCAL_GROUPS = [
  [6, I32],
  [7, V128],
] as const;

function rowBlock(n: number): number[] {
  const code: number[] = [];
  code.push(...get(MATRIX), ...get(ROW), ...get(STRIDE), OP.i32Mul, OP.i32Add, ...set(PTR));
  for (let r = 1; r < n; r++) code.push(...get(PTR + r - 1), ...get(STRIDE), OP.i32Add, ...set(PTR + r));
  for (let r = 0; r < n; r++) code.push(...simd(SIMD_OP.v128Const), ...new Array<number>(16).fill(0), ...set(ACC + r));

  // The query's 16 values for bytes J..J+15 of a row: int16, at 2 * J and 2 * J + 16.
  const queryAt = (offset: number) => [
    ...get(QUERY),
    ...get(J),
    ...i32(1),
    OP.i32Shl,
    OP.i32Add,
    ...i32(offset),
    OP.i32Add,
    ...simd(SIMD_OP.v128Load),
    ...MEMARG,
  ];
  const step: number[] = [...queryAt(0), ...set(QL), ...queryAt(16), ...set(QH)];
  for (let r = 0; r < n; r++) {
    step.push(...get(PTR + r), ...get(J), OP.i32Add, ...simd(SIMD_OP.v128Load), ...MEMARG, ...set(RV));
    step.push(...get(ACC + r), ...get(RV), ...simd(SIMD_OP.i16x8ExtendLowI8x16S), ...get(QL), ...simd(SIMD_OP.i32x4DotI16x8S), ...simd(SIMD_OP.i32x4Add));
    step.push(...get(RV), ...simd(SIMD_OP.i16x8ExtendHighI8x16S), ...get(QH), ...simd(SIMD_OP.i32x4DotI16x8S), ...simd(SIMD_OP.i32x4Add), ...set(ACC + r));
  }
  step.push(...get(J), ...i32(16), OP.i32Add, ...set(J));
  code.push(...i32(0), ...set(J), ...loopUntil([...get(J), ...get(STRIDE), OP.i32GeU], step));

  const lane = (r: number, l: number) => [...get(ACC + r), ...simd(SIMD_OP.i32x4ExtractLane), l];
  const byteOffset = (base: number, r: number) => [...get(base), ...get(ROW), ...i32(r), OP.i32Add, ...i32(2), OP.i32Shl, OP.i32Add];
  for (let r = 0; r < n; r++) {
    code.push(...byteOffset(OUT, r));
    code.push(...lane(r, 0), ...lane(r, 1), OP.i32Add, ...lane(r, 2), OP.i32Add, ...lane(r, 3), OP.i32Add, OP.f32ConvertI32S);
    code.push(...byteOffset(SCALES, r), OP.f32Load, ...MEMARG, OP.f32Mul, OP.f32Store, ...MEMARG);
  }
  return code;
}

function scoresCode(): number[] {
  return [
    ...i32(0),
    ...set(ROW),
    ...loopUntil([...get(ROW), ...i32(4), OP.i32Add, ...get(ROWS), OP.i32GtU], [...rowBlock(4), ...get(ROW), ...i32(4), OP.i32Add, ...set(ROW)]),
    ...loopUntil([...get(ROW), ...get(ROWS), OP.i32GeU], [...rowBlock(1), ...get(ROW), ...i32(1), OP.i32Add, ...set(ROW)]),
  ];
}

/** The module's bytes, built once. */
export const INT8_KERNEL_WASM: Uint8Array = singleFunctionModule('scores8', 6, LOCAL_GROUPS, scoresCode());
