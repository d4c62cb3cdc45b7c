// DynamicValue on the wire: core always sends msgpack (we always answer msgpack, the only
// encoding that can express unknown). JSON appears only inside RawState (state upgrades).
import type { DynamicValue, DynamicValue__Output } from '../generated/types/tfplugin6/DynamicValue.js';
import { decodeMsgpack, encodeMsgpack } from '../values/msgpack.js';
import type { TfType } from '../values/tf-type.js';
import { isObjectValue, type TfObject, type TfValue } from '../values/tf-value.js';

export function decodeDynamic(value: DynamicValue__Output | null | undefined, type: TfType): TfValue {
  if (!value) return null;
  if (value.msgpack && value.msgpack.length > 0) return decodeMsgpack(value.msgpack, type);
  if (value.json && value.json.length > 0) throw new Error('JSON-encoded DynamicValue is not expected here; core sends msgpack');
  return null;
}

/** Decodes a whole resource object (config, state, plan); null stays null. */
export function decodeObject(value: DynamicValue__Output | null | undefined, type: TfType): TfObject | null {
  const v = decodeDynamic(value, type);
  if (v === null) return null;
  if (!isObjectValue(v)) throw new Error('expected an object value');
  return v;
}

export function encodeDynamic(value: TfValue, type: TfType): DynamicValue {
  // encodeMsgpack returns fresh bytes: wrap them, do not copy them again.
  const bytes = encodeMsgpack(value, type);
  return { msgpack: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}
