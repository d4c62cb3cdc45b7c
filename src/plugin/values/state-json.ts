// cty's JSON form of a value, as the state file stores it (RawState.json in UpgradeResourceState
// and MoveResourceState). Typed by the schema: `dynamic` values are {"value": V, "type": T}.
// Numbers go through JSON.parse here, which is exact for every value the Host API can carry
// (I-JSON doubles); the same-schema upgrade path never parses (it hands the bytes back).
import { TfNumber } from './tf-number.js';
import { typeFromJson, type TfType } from './tf-type.js';
import { objectValue, TfDynamic, type TfValue } from './tf-value.js';

export function decodeStateJson(json: unknown, type: TfType): TfValue {
  if (json === null || json === undefined) return null;
  switch (type.kind) {
    case 'string':
      return typeof json === 'string' ? json : String(json);
    case 'bool':
      return json === true;
    case 'number':
      return typeof json === 'number' ? TfNumber.of(json) : typeof json === 'string' ? TfNumber.fromDecimal(json) : null;
    case 'list':
    case 'set':
      return Array.isArray(json) ? json.map((v) => decodeStateJson(v, type.element)) : null;
    case 'tuple':
      return Array.isArray(json) ? json.map((v, i) => decodeStateJson(v, type.elements[i] ?? { kind: 'dynamic' })) : null;
    case 'map':
      return isObject(json) ? objectValue(Object.entries(json).map(([k, v]) => [k, decodeStateJson(v, type.element)] as const)) : null;
    case 'object':
      return isObject(json) ? objectValue(Object.entries(type.attributes).map(([k, t]) => [k, decodeStateJson(json[k], t)] as const)) : null;
    case 'dynamic': {
      if (!isObject(json) || !('type' in json)) return null;
      const inner = typeFromJson(json.type);
      return new TfDynamic(inner, decodeStateJson(json.value, inner));
    }
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
