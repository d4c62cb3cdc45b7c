// Declared constraints (wire reference §18). The vocabulary is closed and a Host must never parse
// and ignore one, so a Definition declaring a kind this Host does not implement is refused at
// install time. Implemented so far: orderedPair. The others need stored-state checks (claims,
// relations, uid pins) that arrive with relations; each gets a reader and a checker here.
import { appendPointer, pointerTokens, resolvePointer } from './json-pointer.js';
import { isJsonObject, type JsonObject, type JsonValue } from './json-value.js';
import type { SpecProblem } from './spec-problem.js';

export const DECLARED_CONSTRAINT_KINDS = [
  'exclusive',
  'sum',
  'claim',
  'hostAssigned',
  'orderedPair',
  'uniqueBy',
  'acyclic',
  'distinctPair',
  'uniquePair',
  'sameResolvedTarget',
] as const;

export type DeclaredConstraintKind = (typeof DECLARED_CONSTRAINT_KINDS)[number];

export const IMPLEMENTED_CONSTRAINT_KINDS: readonly DeclaredConstraintKind[] = ['orderedPair'];

/** value(references[0]) <= value(references[1]); both are numeric spec members. */
export interface OrderedPairConstraint {
  readonly kind: 'orderedPair';
  readonly references: readonly [string, string];
}

export type DeclaredConstraint = OrderedPairConstraint;

/** Why a constraint entry cannot be installed; `unsupported` maps to unsupported_capability. */
export class DeclaredConstraintError extends Error {
  override readonly name = 'DeclaredConstraintError';
  constructor(
    message: string,
    readonly reason: 'malformed' | 'unknown-kind' | 'not-implemented',
  ) {
    super(message);
  }
}

/** Reads one entry of a Definition's `constraints` array at `pointer`. */
export function readDeclaredConstraint(entry: JsonValue, pointer: string): DeclaredConstraint {
  if (!isJsonObject(entry) || typeof entry.kind !== 'string') {
    throw new DeclaredConstraintError(`${pointer} must be an object with a string "kind"`, 'malformed');
  }
  const kind = entry.kind;
  if (!isDeclaredConstraintKind(kind)) {
    throw new DeclaredConstraintError(`${pointer}: "${kind}" is not a v1 declared constraint kind`, 'unknown-kind');
  }
  if (!IMPLEMENTED_CONSTRAINT_KINDS.includes(kind)) {
    throw new DeclaredConstraintError(
      `${pointer}: constraint kind "${kind}" is not implemented by this Host (unsupported_capability); ` +
        'a Host must not install a Form whose constraints it would ignore',
      'not-implemented',
    );
  }
  return readOrderedPair(entry, pointer);
}

/** Every declared-constraint violation in a materialized, schema-valid spec. */
export function checkDeclaredConstraints(constraints: readonly DeclaredConstraint[], spec: JsonObject): SpecProblem[] {
  const problems: SpecProblem[] = [];
  for (const constraint of constraints) {
    const problem = checkOrderedPair(constraint, spec);
    if (problem !== undefined) problems.push(problem);
  }
  return problems;
}

function readOrderedPair(entry: JsonObject, pointer: string): OrderedPairConstraint {
  const foreign = Object.keys(entry).filter((member) => member !== 'kind' && member !== 'references');
  if (foreign.length > 0) {
    throw new DeclaredConstraintError(`${pointer}: orderedPair has foreign member "${foreign[0]}"`, 'malformed');
  }
  const references = entry.references;
  const at = appendPointer(pointer, 'references');
  if (!Array.isArray(references) || references.length !== 2) {
    throw new DeclaredConstraintError(`${at} must be an array of two JSON Pointers`, 'malformed');
  }
  const [first, second] = references;
  for (const reference of [first, second]) {
    const tokens = typeof reference === 'string' ? pointerTokens(reference) : undefined;
    if (tokens === undefined || tokens.length === 0 || tokens.includes('*')) {
      throw new DeclaredConstraintError(`${at} must hold two non-root, non-wildcard JSON Pointers`, 'malformed');
    }
  }
  if (typeof first !== 'string' || typeof second !== 'string' || first === second) {
    throw new DeclaredConstraintError(`${at} must name two distinct members`, 'malformed');
  }
  return { kind: 'orderedPair', references: [first, second] };
}

function checkOrderedPair(constraint: OrderedPairConstraint, spec: JsonObject): SpecProblem | undefined {
  const [lowerPointer, upperPointer] = constraint.references;
  const lower = resolvePointer(spec, lowerPointer);
  const upper = resolvePointer(spec, upperPointer);
  // The pair is declared over required numeric members, which schema validation has already
  // enforced; an absent optional member leaves nothing to order.
  if (typeof lower !== 'number' || typeof upper !== 'number' || lower <= upper) return undefined;
  return {
    pointer: upperPointer,
    message: `must be greater than or equal to ${lowerPointer} (orderedPair: ${upper} < ${lower})`,
  };
}

function isDeclaredConstraintKind(kind: string): kind is DeclaredConstraintKind {
  return (DECLARED_CONSTRAINT_KINDS as readonly string[]).includes(kind);
}
