// Values as the plugin handles them between decoding and encoding. Unknown is its own
// sentinel (never a kind of null), `dynamic` slots keep the concrete type next to the value
// so they can be written back, and numbers stay exact (TfNumber).
import type { TfType } from './tf-type.js';
import { TfNumber } from './tf-number.js';

/** What core knows about a value it cannot compute yet (msgpack extension 12). */
export interface Refinements {
  readonly notNull?: boolean;
  readonly stringPrefix?: string;
  readonly numberLower?: { readonly value: TfNumber; readonly inclusive: boolean };
  readonly numberUpper?: { readonly value: TfNumber; readonly inclusive: boolean };
  readonly lengthLower?: number;
  readonly lengthUpper?: number;
}

export class Unknown {
  constructor(readonly refinements: Refinements = {}) {}
}

/** A plain unknown with no refinements. */
export const UNKNOWN = new Unknown();

/** A known value sitting in an attribute of type `dynamic`, with its concrete type. */
export class TfDynamic {
  constructor(
    readonly type: TfType,
    readonly value: TfValue,
  ) {}
}

export type TfObject = { readonly [name: string]: TfValue };

export type TfValue = null | Unknown | string | boolean | TfNumber | TfDynamic | readonly TfValue[] | TfObject;

export function isUnknown(value: TfValue): value is Unknown {
  return value instanceof Unknown;
}

export function isObjectValue(value: TfValue): value is TfObject {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Unknown) &&
    !(value instanceof TfDynamic) &&
    !(value instanceof TfNumber)
  );
}

/** True when no unknown appears anywhere inside the value. */
export function isWhollyKnown(value: TfValue): boolean {
  if (value instanceof Unknown) return false;
  if (value instanceof TfDynamic) return isWhollyKnown(value.value);
  if (Array.isArray(value)) return value.every(isWhollyKnown);
  if (isObjectValue(value)) return Object.values(value).every(isWhollyKnown);
  return true;
}

/** Creates an object value with a null prototype so that keys like "__proto__" are data. */
export function objectValue(entries: Iterable<readonly [string, TfValue]>): TfObject {
  const out: Record<string, TfValue> = Object.create(null) as Record<string, TfValue>;
  for (const [k, v] of entries) out[k] = v;
  return out;
}
