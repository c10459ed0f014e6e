/**
 * Writing WebAssembly by hand, byte by byte: the opcodes and encodings the engine's kernels use
 * (dotKernel.ts, int8Kernel.ts). Emitted in TypeScript rather than compiled from .wat files, so the
 * engine needs no toolchain and no build step; each kernel's comment gives its code in WAT.
 */

export const OP = {
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
  f32ConvertI32S: 0xb2,
  simdPrefix: 0xfd,
} as const;

/** Opcodes after the 0xfd prefix (LEB128-encoded). */
export const SIMD_OP = {
  v128Load: 0,
  v128Const: 12,
  i32x4ExtractLane: 27,
  f32x4ExtractLane: 31,
  i16x8ExtendLowI8x16S: 135,
  i16x8ExtendHighI8x16S: 136,
  i32x4Add: 174,
  i32x4DotI16x8S: 186,
  f32x4Add: 228,
  f32x4Mul: 230,
} as const;

export const I32 = 0x7f,
  F32 = 0x7d,
  V128 = 0x7b;
const EMPTY_BLOCK = 0x40,
  FUNC_TYPE = 0x60;

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

export const get = (i: number) => [OP.localGet, i];
export const set = (i: number) => [OP.localSet, i];
export const i32 = (n: number) => [OP.i32Const, ...sleb(n)];
export const simd = (op: number) => [OP.simdPrefix, ...uleb(op)];
/** A load/store's memarg: alignment 4 bytes (v128 loads need not be aligned), offset 0. */
export const MEMARG = [2, 0];

/** block { loop { if (exit) break; body; continue } } */
export function loopUntil(exit: number[], body: number[]): number[] {
  return [OP.block, EMPTY_BLOCK, OP.loop, EMPTY_BLOCK, ...exit, OP.brIf, 1, ...body, OP.br, 0, OP.end, OP.end];
}

/**
 * A module that imports its memory ("env" "memory") and exports one function of `params` i32
 * parameters and no result; `locals` are (count, type) groups after the parameters, `code` its body.
 */
export function singleFunctionModule(name: string, params: number, locals: readonly (readonly [number, number])[], code: number[]): Uint8Array {
  const body = [...vector(locals.map(([count, type]) => [...uleb(count), type])), ...code, OP.end];
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00, // "\0asm", version 1
    ...section(1, vector([[FUNC_TYPE, ...vector(Array.from({ length: params }, () => [I32])), ...vector([])]])), // type 0: (i32 x params) -> ()
    ...section(2, vector([[...utf8Name('env'), ...utf8Name('memory'), 0x02, 0x00, ...uleb(1)]])), // import memory, min 1 page
    ...section(3, vector([[0]])), // function 0 has type 0
    ...section(7, vector([[...utf8Name(name), 0x00, 0]])), // export function 0
    ...section(10, vector([[...uleb(body.length), ...body]])),
  ];
  return Uint8Array.from(bytes);
}
