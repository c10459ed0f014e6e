/**
 * The bytes of a small WebAssembly module with one SIMD (f32x4) function, emitted here rather than
 * compiled from a .wat file, so the engine needs no toolchain and no build step. In WAT it reads:
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

const OP = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  f32Load: 0x2a,
  f32Store: 0x38,
  i32Const: 0x41,
  i32GtU: 0x4b,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32Mul: 0x6c,
  i32And: 0x71,
  i32Shl: 0x74,
  f32Add: 0x92,
  f32Mul: 0x94,
  simdPrefix: 0xfd,
} as const;

/** Opcodes after the 0xfd prefix (LEB128-encoded). */
const SIMD = { v128Load: 0, v128Const: 12, f32x4ExtractLane: 31, f32x4Add: 228, f32x4Mul: 230 } as const;

const I32 = 0x7f, F32 = 0x7d, V128 = 0x7b, EMPTY_BLOCK = 0x40, FUNC_TYPE = 0x60;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    const byte = n & 0x7f;
    n >>>= 7;
    out.push(n === 0 ? byte : byte | 0x80);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    const done = (n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const vector = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const utf8Name = (s: string) => vector(Array.from(s, (c) => [c.charCodeAt(0)]));

// Local indices: the five parameters, then the function's own locals.
const QUERY = 0, MATRIX = 1, ROWS = 2, DIM = 3, OUT = 4;
const ROW = 5, J = 6, SIMD_BYTES = 7, ROW_BYTES = 8;
const PTR = 9; // PTR + r: byte offset of the r-th row of the current block (four i32)
const ACC = 13; // ACC + r: its f32x4 accumulator (four v128)
const QV = 17; // four floats of the query (v128)
const SUM = 18; // SUM + r: its scalar sum (four f32)
const QS = 22; // one float of the query, in the tail (f32)
const LOCAL_GROUPS = [[8, I32], [5, V128], [5, F32]]; // (count, type), in index order after the parameters

const get = (i: number) => [OP.localGet, i];
const set = (i: number) => [OP.localSet, i];
const i32 = (n: number) => [OP.i32Const, ...sleb(n)];
const simd = (op: number) => [OP.simdPrefix, ...uleb(op)];
/** A load/store's memarg: alignment 4 bytes (the rows are f32; v128 loads need not be aligned), offset 0. */
const MEMARG = [2, 0];

/** block { loop { if (exit) break; body; continue } } */
function loopUntil(exit: number[], body: number[]): number[] {
  return [OP.block, EMPTY_BLOCK, OP.loop, EMPTY_BLOCK, ...exit, OP.brIf, 1, ...body, OP.br, 0, OP.end, OP.end];
}

/** Scores the n rows from ROW on: out[ROW + r] = dot(row ROW + r, query). */
function rowBlock(n: number): number[] {
  const code: number[] = [];
  code.push(...get(MATRIX), ...get(ROW), ...get(ROW_BYTES), OP.i32Mul, OP.i32Add, ...set(PTR));
  for (let r = 1; r < n; r++) code.push(...get(PTR + r - 1), ...get(ROW_BYTES), OP.i32Add, ...set(PTR + r));
  for (let r = 0; r < n; r++) code.push(...simd(SIMD.v128Const), ...new Array<number>(16).fill(0), ...set(ACC + r));

  // SIMD part, 16 bytes a step: one load of the query for the n rows.
  const step: number[] = [...get(QUERY), ...get(J), OP.i32Add, ...simd(SIMD.v128Load), ...MEMARG, ...set(QV)];
  for (let r = 0; r < n; r++) {
    step.push(...get(ACC + r), ...get(PTR + r), ...get(J), OP.i32Add, ...simd(SIMD.v128Load), ...MEMARG);
    step.push(...get(QV), ...simd(SIMD.f32x4Mul), ...simd(SIMD.f32x4Add), ...set(ACC + r));
  }
  step.push(...get(J), ...i32(16), OP.i32Add, ...set(J));
  code.push(...i32(0), ...set(J), ...loopUntil([...get(J), ...get(SIMD_BYTES), OP.i32GeU], step));

  const lane = (r: number, l: number) => [...get(ACC + r), ...simd(SIMD.f32x4ExtractLane), l];
  for (let r = 0; r < n; r++) code.push(...lane(r, 0), ...lane(r, 1), OP.f32Add, ...lane(r, 2), ...lane(r, 3), OP.f32Add, OP.f32Add, ...set(SUM + r));

  // Scalar tail, 4 bytes a step, when dim is not a multiple of 4.
  const tail: number[] = [...get(QUERY), ...get(J), OP.i32Add, OP.f32Load, ...MEMARG, ...set(QS)];
  for (let r = 0; r < n; r++) {
    tail.push(...get(SUM + r), ...get(PTR + r), ...get(J), OP.i32Add, OP.f32Load, ...MEMARG, ...get(QS), OP.f32Mul, OP.f32Add, ...set(SUM + r));
  }
  tail.push(...get(J), ...i32(4), OP.i32Add, ...set(J));
  code.push(...loopUntil([...get(J), ...get(ROW_BYTES), OP.i32GeU], tail));

  // out + (row + r) * 4 = sum
  for (let r = 0; r < n; r++) code.push(...get(OUT), ...get(ROW), ...i32(r), OP.i32Add, ...i32(2), OP.i32Shl, OP.i32Add, ...get(SUM + r), OP.f32Store, ...MEMARG);
  return code;
}

function scoresFunction(): number[] {
  const code: number[] = [
    ...get(DIM), ...i32(2), OP.i32Shl, ...set(ROW_BYTES), // rowBytes = dim * 4
    ...get(ROW_BYTES), ...i32(-16), OP.i32And, ...set(SIMD_BYTES), // simdBytes = rowBytes & ~15
    ...i32(0), ...set(ROW),
    // while (row + 4 <= rows) { four rows; row += 4 }
    ...loopUntil([...get(ROW), ...i32(4), OP.i32Add, ...get(ROWS), OP.i32GtU], [...rowBlock(4), ...get(ROW), ...i32(4), OP.i32Add, ...set(ROW)]),
    // while (row < rows) { one row; row += 1 }
    ...loopUntil([...get(ROW), ...get(ROWS), OP.i32GeU], [...rowBlock(1), ...get(ROW), ...i32(1), OP.i32Add, ...set(ROW)]),
    OP.end,
  ];
  const body = [...vector(LOCAL_GROUPS.map(([count, type]) => [...uleb(count!), type!])), ...code];
  return [...uleb(body.length), ...body];
}

function buildModule(): Uint8Array {
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
    ...section(1, vector([[FUNC_TYPE, ...vector([[I32], [I32], [I32], [I32], [I32]]), ...vector([])]])), // type 0: (i32 x5) -> ()
    ...section(2, vector([[...utf8Name('env'), ...utf8Name('memory'), 0x02, 0x00, ...uleb(1)]])), // import memory, min 1 page
    ...section(3, vector([[0]])), // function 0 has type 0
    ...section(7, vector([[...utf8Name('scores'), 0x00, 0]])), // export function 0 as "scores"
    ...section(10, vector([scoresFunction()])),
  ];
  return Uint8Array.from(bytes);
}

/** The module's bytes (a few hundred), built once. */
export const DOT_KERNEL_WASM: Uint8Array = buildModule();
