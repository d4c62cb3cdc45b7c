// The declared constraints a configuration decides alone (Host API v1 §18: orderedPair, sum and
// uniqueBy), checked offline at validate when the catalog carries the Form's
// `constraints` (from its package). The Host checks them again; this only brings the error
// forward with the attribute line, without a Host request. The kinds that depend on other
// resources (claim, exclusive, …) are never judged here: see diag/refusal-class.ts.
import { canonicalJson } from '../../common/digest.js';
import { resolvePointer as at } from '../../common/json-pointer.js';
import type { JsonObject, JsonValue } from '../../common/json-value.js';

export interface SpecConstraintProblem {
  /** JSON Pointer into the spec of the value at fault. */
  readonly pointer: string;
  readonly rule: 'orderedPair' | 'sum' | 'uniqueBy';
  readonly message: string;
}

export function checkSpecConstraints(spec: JsonObject, constraints: readonly JsonObject[]): SpecConstraintProblem[] {
  const problems: SpecConstraintProblem[] = [];
  for (const c of constraints) {
    const p = checkOne(spec, c);
    if (p) problems.push(p);
  }
  return problems;
}

function checkOne(spec: JsonObject, c: JsonObject): SpecConstraintProblem | undefined {
  if (c.kind === 'orderedPair' && Array.isArray(c.references) && c.references.length === 2) {
    const [p1, p2] = c.references as string[];
    const a = at(spec, p1!);
    const b = at(spec, p2!);
    if (typeof a === 'number' && typeof b === 'number' && a > b) {
      return { pointer: p1!, rule: 'orderedPair', message: `must be at most ${p2} (${a} > ${b})` };
    }
  } else if (c.kind === 'sum' && typeof c.list === 'string' && typeof c.member === 'string' && typeof c.total === 'number') {
    const list = at(spec, c.list);
    if (!Array.isArray(list)) return undefined;
    let total = 0;
    for (const e of list) {
      const v = isObject(e) ? e[c.member] : undefined;
      if (typeof v === 'number') total += v;
      else if (v === undefined || v === null) continue;
      else return undefined;
    }
    if (total !== c.total) return { pointer: c.list, rule: 'sum', message: `the "${c.member}" members must sum to exactly ${c.total}; they sum to ${total}` };
  } else if (c.kind === 'uniqueBy' && typeof c.list === 'string' && typeof c.member === 'string') {
    const list = at(spec, c.list);
    if (!Array.isArray(list)) return undefined;
    const seen = new Map<string, number>();
    for (const [i, e] of list.entries()) {
      const v = isObject(e) ? e[c.member] : undefined;
      if (v === undefined) continue;
      const key = canonicalJson(v);
      const first = seen.get(key);
      if (first !== undefined) return { pointer: `${c.list}/${i}/${c.member}`, rule: 'uniqueBy', message: `repeats the "${c.member}" of element ${first}` };
      seen.set(key, i);
    }
  }
  return undefined;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
