// The pre-generated protocol (src/plugin/generated/protocol.ts) must be byte- and
// object-identical to what @grpc/proto-loader builds from the same descriptor at run time:
// every method's request and response, as bytes on the wire and as handler objects.
import * as protoLoader from '@grpc/proto-loader';
import Long from 'long';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import descriptor from '../../../src/plugin/generated/descriptor.json' with { type: 'json' };
import { PACKAGE_DEFINITION } from '../../../src/plugin/generated/protocol.js';
import { LOADER_OPTIONS } from '../../../src/plugin/grpc/plugin-server.js';

type Json = Parameters<typeof protoLoader.fromJSON>[0];

// protobufjs decides per field, when the descriptor is loaded, whether int64 is "long" (and so
// converted to strings by `longs: String`) from whether `long` is installed. The generated
// protocol was generated with it and runs without it (it sets util.Long = null when loaded), so
// build the reference with `long`, and run each side in its own mode.
const longMode = (on: boolean) => {
  protobuf.util.Long = on ? Long : (null as unknown as typeof Long);
  protobuf.configure();
};
longMode(true);
const reference = protoLoader.fromJSON(descriptor as Json, { ...LOADER_OPTIONS });
const root = protobuf.Root.fromJSON(descriptor as protobuf.INamespace);
root.resolveAll();
const asReference = <T>(fn: () => T): T => {
  longMode(true);
  try {
    return fn();
  } finally {
    longMode(false);
  }
};
longMode(false);

/** A message with every field set (one member per oneof), nested `depth` levels deep. */
function sample(type: protobuf.Type, depth: number, variant: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const seenOneofs = new Set<string>();
  type.fieldsArray.forEach((field, i) => {
    const oneof = field.partOf;
    if (oneof) {
      const pick = oneof.fieldsArray[variant % oneof.fieldsArray.length];
      if (pick !== field || seenOneofs.has(oneof.name)) return;
      seenOneofs.add(oneof.name);
    }
    const one = () => scalar(field, depth, variant + i);
    if (field.map) {
      out[field.name] = { a: one(), [`k${variant}`]: one() };
    } else if (field.repeated) {
      out[field.name] = [one(), one()];
    } else {
      out[field.name] = one();
    }
  });
  return out;
}

function scalar(field: protobuf.Field, depth: number, variant: number): unknown {
  const resolved = field.resolve().resolvedType;
  if (resolved instanceof protobuf.Type) return depth > 0 ? sample(resolved, depth - 1, variant) : {};
  if (resolved instanceof protobuf.Enum) {
    const names = Object.keys(resolved.values);
    return names[variant % names.length];
  }
  switch (field.type) {
    case 'string':
      return `s${variant}-é✓`;
    case 'bytes':
      return Buffer.from([variant & 0xff, 0, 255, 7]);
    case 'bool':
      return variant % 2 === 0;
    case 'double':
    case 'float':
      return 0.5 + variant;
    // int64 values within 2^53: the generated protocol carries them as numbers (no Long).
    case 'int64':
    case 'sint64':
    case 'sfixed64':
      return variant % 2 ? '-9007199254740991' : '9007199254740991';
    case 'uint64':
    case 'fixed64':
      return '9007199254740991';
    case 'int32':
    case 'sint32':
    case 'sfixed32':
      return -variant - 1;
    default:
      return variant + 1;
  }
}

describe('pre-generated protocol', () => {
  const services = Object.entries(PACKAGE_DEFINITION);
  it('has every service of the descriptor, with the same methods and paths', () => {
    const expected = Object.entries(reference).filter(([, v]) => !('format' in v));
    expect(services.map(([k]) => k).sort()).toEqual(expected.map(([k]) => k).sort());
    for (const [name, methods] of services) {
      const ref = reference[name] as protoLoader.ServiceDefinition;
      for (const [m, def] of Object.entries(methods)) {
        expect({ path: def.path, requestStream: def.requestStream, responseStream: def.responseStream, originalName: def.originalName }).toEqual({
          path: ref[m]!.path,
          requestStream: ref[m]!.requestStream,
          responseStream: ref[m]!.responseStream,
          originalName: ref[m]!.originalName,
        });
      }
    }
  });

  for (const [name, methods] of services) {
    for (const [m, def] of Object.entries(methods)) {
      it(`${name}/${m}: same bytes and objects as proto-loader`, () => {
        const ref = (reference[name] as protoLoader.ServiceDefinition)[m]!;
        const method = root.lookupService(name).methods[m]!;
        method.resolve();
        type Codec = [protobuf.Type, (v: object) => Buffer, (b: Buffer) => unknown, (v: object) => Buffer, (b: Buffer) => unknown];
        const cases: Codec[] = [
          [method.resolvedRequestType!, def.requestSerialize, def.requestDeserialize, ref.requestSerialize, ref.requestDeserialize],
          [method.resolvedResponseType!, def.responseSerialize, def.responseDeserialize, ref.responseSerialize, ref.responseDeserialize],
        ];
        for (const [type, ser, deser, refSer, refDeser] of cases) {
          expect(deser(Buffer.alloc(0))).toEqual(asReference(() => refDeser(Buffer.alloc(0))));
          for (let variant = 0; variant < 3; variant++) {
            const value = sample(type, 3, variant);
            const bytes = ser(value);
            expect(Buffer.from(bytes).equals(Buffer.from(asReference(() => refSer(value))))).toBe(true);
            expect(deser(bytes)).toEqual(asReference(() => refDeser(bytes)));
          }
        }
      });
    }
  }
});
