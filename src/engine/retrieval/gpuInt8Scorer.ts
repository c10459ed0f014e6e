/// <reference types="@webgpu/types" />
import { EngineError } from '../errors';
import { type Int8Matrix, quantizeInt16 } from './int8Matrix';
import type { ScoredIndex } from './vectors';

/**
 * The int8 matrix's scores on WebGPU: one invocation per row sums the row's int8 codes (packed four
 * to a u32) times the int16 query in i32, exactly as the WASM kernel does, then f32(sum) * scale.
 * Integer sums are exact, so the scores equal the WASM kernel's wherever the GPU converts and
 * multiplies in f32 with round-to-nearest (WGSL allows either nearest value for the conversion of sums
 * over 2^24); the ranking then runs on the CPU (Int8Matrix.rankScores). Rows go to the GPU in chunks
 * under the device's storage-binding limit (128 MB by default).
 */
const SHADER = /* wgsl */ `
struct Params { rows: u32, words: u32, dispatchWidth: u32, pad: u32 }
@group(0) @binding(0) var<storage, read> codes: array<u32>;
@group(0) @binding(1) var<storage, read> query: array<i32>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read_write> scores: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let r = id.x + id.y * params.dispatchWidth * 64u;
  if (r >= params.rows) { return; }
  var sum: i32 = 0;
  let base = r * params.words;
  for (var w: u32 = 0u; w < params.words; w++) {
    let packed = codes[base + w];
    let q = w * 4u;
    // Sign-extend each byte: shift it to the top, then an arithmetic shift back down.
    sum += (bitcast<i32>(packed << 24u) >> 24u) * query[q]
         + (bitcast<i32>(packed << 16u) >> 24u) * query[q + 1u]
         + (bitcast<i32>(packed << 8u) >> 24u) * query[q + 2u]
         + (bitcast<i32>(packed) >> 24u) * query[q + 3u];
  }
  scores[r] = f32(sum) * scales[r];
}`;

const WORKGROUP = 64;
const MAX_GROUPS_PER_DIMENSION = 65535;

interface Chunk {
  firstRow: number;
  rows: number;
  bindGroup: GPUBindGroup;
  scores: GPUBuffer;
  readback: GPUBuffer;
  groups: [number, number];
}

export class GpuInt8Scorer {
  private constructor(
    private readonly device: GPUDevice,
    private readonly matrix: Int8Matrix,
    private readonly pipeline: GPUComputePipeline,
    private readonly queryBuffer: GPUBuffer,
    private readonly chunks: Chunk[],
    private readonly owned: GPUBuffer[],
  ) {}

  /** Uploads the matrix's codes and scales; the device is the caller's (one per worker). */
  static create(device: GPUDevice, matrix: Int8Matrix): GpuInt8Scorer {
    if (matrix.stride % 4 !== 0) throw new EngineError('invalid-input', 'The int8 matrix rows must be a whole number of 32-bit words.');
    const rowBytes = matrix.stride;
    const limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    const rowsPerChunk = Math.max(1, Math.floor(limit / rowBytes));
    const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code: SHADER }), entryPoint: 'main' } });
    const owned: GPUBuffer[] = [];
    const buffer = (size: number, usage: number) => {
      const b = device.createBuffer({ size: Math.max(16, Math.ceil(size / 4) * 4), usage });
      owned.push(b);
      return b;
    };
    const queryBuffer = buffer(matrix.stride * 4, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST);
    const chunks: Chunk[] = [];
    for (let firstRow = 0; firstRow < matrix.rows; firstRow += rowsPerChunk) {
      const rows = Math.min(rowsPerChunk, matrix.rows - firstRow);
      const codes = buffer(rows * rowBytes, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST);
      device.queue.writeBuffer(codes, 0, matrix.codes.buffer, matrix.codes.byteOffset + firstRow * rowBytes, rows * rowBytes);
      const scales = buffer(rows * 4, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST);
      device.queue.writeBuffer(scales, 0, matrix.scales.buffer, matrix.scales.byteOffset + firstRow * 4, rows * 4);
      const scores = buffer(rows * 4, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC);
      const readback = buffer(rows * 4, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
      const groups = Math.ceil(rows / WORKGROUP);
      const width = Math.min(groups, MAX_GROUPS_PER_DIMENSION);
      const params = buffer(16, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
      device.queue.writeBuffer(params, 0, Uint32Array.of(rows, rowBytes / 4, width, 0));
      const bindGroup = device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: [codes, queryBuffer, scales, scores, params].map((b, binding) => ({ binding, resource: { buffer: b } })),
      });
      chunks.push({ firstRow, rows, bindGroup, scores, readback, groups: [width, Math.ceil(groups / width)] });
    }
    return new GpuInt8Scorer(device, matrix, pipeline, queryBuffer, chunks, owned);
  }

  /** Every row's score, as Int8Matrix.scores computes it, and the query's scale. */
  async scores(query: Float32Array): Promise<{ scores: Float32Array; queryScale: number }> {
    if (query.length !== this.matrix.dim) throw new EngineError('invalid-input', `The query has ${query.length} dimensions, the matrix ${this.matrix.dim}.`);
    const codes = new Int16Array(this.matrix.stride);
    const queryScale = quantizeInt16(query, codes.subarray(0, this.matrix.dim));
    this.device.queue.writeBuffer(this.queryBuffer, 0, Int32Array.from(codes));
    const encoder = this.device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(this.pipeline);
    for (const chunk of this.chunks) {
      pass.setBindGroup(0, chunk.bindGroup);
      pass.dispatchWorkgroups(chunk.groups[0], chunk.groups[1]);
    }
    pass.end();
    for (const chunk of this.chunks) encoder.copyBufferToBuffer(chunk.scores, 0, chunk.readback, 0, chunk.rows * 4);
    this.device.queue.submit([encoder.finish()]);
    const out = new Float32Array(this.matrix.rows);
    for (const chunk of this.chunks) {
      await chunk.readback.mapAsync(GPUMapMode.READ, 0, chunk.rows * 4);
      out.set(new Float32Array(chunk.readback.getMappedRange(0, chunk.rows * 4)), chunk.firstRow);
      chunk.readback.unmap();
    }
    return { scores: out, queryScale };
  }

  async topK(query: Float32Array, k: number, exclude?: ReadonlySet<number>): Promise<ScoredIndex[]> {
    const { scores, queryScale } = await this.scores(query);
    return this.matrix.rankScores(scores, queryScale, query, k, exclude);
  }

  destroy(): void {
    for (const b of this.owned) b.destroy();
  }
}
