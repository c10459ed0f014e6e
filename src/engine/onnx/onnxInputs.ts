import { EngineError } from '../errors';

/**
 * The graph inputs an ONNX model declares (ModelProto.graph.input, less any initializer of the same
 * name, as onnxruntime reports them), read from the file's bytes without creating a session. A model
 * whose session is created on first use (ModelSessions' `deferred`) still answers what it takes, for
 * example whether an image tower takes the detector's grounding, which the pool's fingerprint needs at
 * load. Hand-written because it walks three protobuf fields: protobufjs and the ONNX schema would add
 * far more to the bundle than these forty lines.
 */
export function onnxInputNames(bytes: Uint8Array, location = 'the model'): string[] {
  const graph = fieldsOf(bytes, location).find((f) => f.number === MODEL_GRAPH && f.bytes);
  if (!graph?.bytes) throw notOnnx(location, 'it has no graph');
  const inputs: string[] = [];
  const initializers = new Set<string>();
  for (const field of fieldsOf(graph.bytes, location)) {
    if (!field.bytes) continue;
    if (field.number === GRAPH_INPUT) inputs.push(nameOf(field.bytes, VALUE_INFO_NAME, location));
    else if (field.number === GRAPH_INITIALIZER) initializers.add(nameOf(field.bytes, TENSOR_NAME, location));
  }
  return inputs.filter((name) => !initializers.has(name));
}

/** The same sentence as a session that onnxruntime could not make of the file (modelSessions.ts). */
function notOnnx(location: string, why: string): EngineError {
  return new EngineError(
    'pack-file-corrupt',
    `${location} could not be loaded as an ONNX model (${why}). The file is damaged or incomplete: restore it and reload.`,
  );
}

// Field numbers of onnx.proto: ModelProto.graph, GraphProto.initializer and .input, ValueInfoProto.name, TensorProto.name.
const MODEL_GRAPH = 7;
const GRAPH_INITIALIZER = 5;
const GRAPH_INPUT = 11;
const VALUE_INFO_NAME = 1;
const TENSOR_NAME = 8;

interface Field {
  number: number;
  /** The payload of a length-delimited field; undefined for the other wire types. */
  bytes?: Uint8Array;
}

function nameOf(message: Uint8Array, fieldNumber: number, location: string): string {
  const field = fieldsOf(message, location).find((f) => f.number === fieldNumber && f.bytes);
  return field?.bytes ? new TextDecoder().decode(field.bytes) : '';
}

/** The top-level fields of one protobuf message, in order (nested messages are not entered). */
function fieldsOf(message: Uint8Array, location: string): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      if (at >= message.length) break;
      const byte = message[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    throw notOnnx(location, 'a number in it is cut off');
  };
  while (at < message.length) {
    const key = varint();
    const number = Math.floor(key / 8);
    const wireType = key % 8;
    if (wireType === 0) varint();
    else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === 2) {
      const length = varint();
      if (at + length > message.length) throw notOnnx(location, 'it ends in the middle of a field');
      fields.push({ number, bytes: message.subarray(at, at + length) });
      at += length;
      continue;
    } else throw notOnnx(location, `a field of wire type ${wireType}, which ONNX does not use`);
    fields.push({ number });
  }
  return fields;
}
