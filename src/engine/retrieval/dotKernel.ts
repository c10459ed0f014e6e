import { F32, I32, MEMARG, OP, SIMD_OP, V128, get, i32, loopUntil, set, simd, singleFunctionModule } from './wasmEmit';

/**
 * The bytes of a small WebAssembly module with one SIMD (f32x4) function (see wasmEmit.ts). In WAT it reads:
 *
 *   (import "env" "memory" (memory 1))
 *   (func (export "scores") (param $query i32) (param $matrix i32) (param $rows i32) (param $dim i32) (param $out i32)
 *     ;; out[r] = dot(row r of matrix, query) in f32 for r in [0, rows); pointers are byte offsets.
 *     ;; Four rows at a time share each v128 load of the query, then one row at a time for the rest.
 *   )
 *
 * Summation order, per row (what the scores' rounding depends on): lane i of an f32x4 accumulator
 * sums products i, i+4, i+8, ... in order; the lanes are added as (l0 + l1) + (l2 + l3); then the
 * dim % 4 tail products are added in order. Every step rounds to f32.
 */

// Local indices: the five parameters, then the function's own locals.
const QUERY = 0,
  MATRIX = 1,
  ROWS = 2,
  DIM = 3,
  OUT = 4;
const ROW = 5,
  J = 6,
  SIMD_BYTES = 7,
  ROW_BYTES = 8;
const PTR = 9; // PTR + r: byte offset of the r-th row of the current block (four i32)
const ACC = 13; // ACC + r: its f32x4 accumulator (four v128)
const QV = 17; // four floats of the query (v128)
const SUM = 18; // SUM + r: its scalar sum (four f32)
const QS = 22; // one float of the query, in the tail (f32)
const LOCAL_GROUPS = [
  [8, I32],
  [5, V128],
  [5, F32],
] as const; // (count, type), in index order after the parameters

/** Scores the n rows from ROW on: out[ROW + r] = dot(row ROW + r, query). */
function rowBlock(n: number): number[] {
  const code: number[] = [];
  code.push(...get(MATRIX), ...get(ROW), ...get(ROW_BYTES), OP.i32Mul, OP.i32Add, ...set(PTR));
  for (let r = 1; r < n; r++) code.push(...get(PTR + r - 1), ...get(ROW_BYTES), OP.i32Add, ...set(PTR + r));
  for (let r = 0; r < n; r++) code.push(...simd(SIMD_OP.v128Const), ...new Array<number>(16).fill(0), ...set(ACC + r));

  // SIMD part, 16 bytes a step: one load of the query for the n rows.
  const step: number[] = [...get(QUERY), ...get(J), OP.i32Add, ...simd(SIMD_OP.v128Load), ...MEMARG, ...set(QV)];
  for (let r = 0; r < n; r++) {
    step.push(...get(ACC + r), ...get(PTR + r), ...get(J), OP.i32Add, ...simd(SIMD_OP.v128Load), ...MEMARG);
    step.push(...get(QV), ...simd(SIMD_OP.f32x4Mul), ...simd(SIMD_OP.f32x4Add), ...set(ACC + r));
  }
  step.push(...get(J), ...i32(16), OP.i32Add, ...set(J));
  code.push(...i32(0), ...set(J), ...loopUntil([...get(J), ...get(SIMD_BYTES), OP.i32GeU], step));

  const lane = (r: number, l: number) => [...get(ACC + r), ...simd(SIMD_OP.f32x4ExtractLane), l];
  for (let r = 0; r < n; r++) code.push(...lane(r, 0), ...lane(r, 1), OP.f32Add, ...lane(r, 2), ...lane(r, 3), OP.f32Add, OP.f32Add, ...set(SUM + r));

  // Scalar tail, 4 bytes a step, when dim is not a multiple of 4.
  const tail: number[] = [...get(QUERY), ...get(J), OP.i32Add, OP.f32Load, ...MEMARG, ...set(QS)];
  for (let r = 0; r < n; r++) {
    tail.push(...get(SUM + r), ...get(PTR + r), ...get(J), OP.i32Add, OP.f32Load, ...MEMARG, ...get(QS), OP.f32Mul, OP.f32Add, ...set(SUM + r));
  }
  tail.push(...get(J), ...i32(4), OP.i32Add, ...set(J));
  code.push(...loopUntil([...get(J), ...get(ROW_BYTES), OP.i32GeU], tail));

  // out + (row + r) * 4 = sum
  for (let r = 0; r < n; r++)
    code.push(...get(OUT), ...get(ROW), ...i32(r), OP.i32Add, ...i32(2), OP.i32Shl, OP.i32Add, ...get(SUM + r), OP.f32Store, ...MEMARG);
  return code;
}

function scoresCode(): number[] {
  return [
    ...get(DIM),
    ...i32(2),
    OP.i32Shl,
    ...set(ROW_BYTES), // rowBytes = dim * 4
    ...get(ROW_BYTES),
    ...i32(-16),
    OP.i32And,
    ...set(SIMD_BYTES), // simdBytes = rowBytes & ~15
    ...i32(0),
    ...set(ROW),
    // while (row + 4 <= rows) { four rows; row += 4 }
    ...loopUntil([...get(ROW), ...i32(4), OP.i32Add, ...get(ROWS), OP.i32GtU], [...rowBlock(4), ...get(ROW), ...i32(4), OP.i32Add, ...set(ROW)]),
    // while (row < rows) { one row; row += 1 }
    ...loopUntil([...get(ROW), ...get(ROWS), OP.i32GeU], [...rowBlock(1), ...get(ROW), ...i32(1), OP.i32Add, ...set(ROW)]),
  ];
}

/** The module's bytes (a few hundred), built once. */
export const DOT_KERNEL_WASM: Uint8Array = singleFunctionModule('scores', 5, LOCAL_GROUPS, scoresCode());
