// Declared constraints (wire reference §18): the closed vocabulary of ten kinds, each entry with
// exactly its listed members. A Host must never parse and ignore a constraint, so every kind read
// here is enforced: the spec-only kinds (orderedPair, sum, uniqueBy, hostAssigned substitutes)
// by checkSpecConstraints below, at validate, prepare, apply and import; the kinds that need
// resolved relations or stored state (exclusive, claim, uniquePair, distinctPair, acyclic,
// sameResolvedTarget) by resources/resolved-constraints.ts inside the mutating transaction.
// An unknown kind, or an entry with missing or foreign members, is an invalid Definition.
import { canonicalJson } from '../common/digest.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../common/json-value.js';
import { appendPointer, pointerTokens, resolvePointer } from '../common/json-pointer.js';
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

/** Every kind of the vocabulary is implemented; the list exists so install can say so. */
export const IMPLEMENTED_CONSTRAINT_KINDS: readonly DeclaredConstraintKind[] = DECLARED_CONSTRAINT_KINDS;

export type DeclaredConstraint =
  | { readonly kind: 'exclusive'; readonly reference: string; readonly keyedBy: string | undefined }
  | { readonly kind: 'sum'; readonly list: string; readonly member: string; readonly total: number }
  | { readonly kind: 'claim'; readonly property: string }
  | { readonly kind: 'hostAssigned'; readonly output: string }
  | { readonly kind: 'orderedPair'; readonly references: readonly [string, string] }
  | { readonly kind: 'uniqueBy'; readonly list: string; readonly member: string }
  | { readonly kind: 'acyclic'; readonly reference: string }
  | { readonly kind: 'distinctPair'; readonly references: readonly [string, string] }
  | { readonly kind: 'uniquePair'; readonly references: readonly [string, string] }
  | { readonly kind: 'sameResolvedTarget'; readonly anchor: string; readonly members: string; readonly through: string };

/** Why a constraint entry cannot be installed. */
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
  const read = new EntryReader(entry, pointer);
  switch (kind) {
    case 'exclusive':
      read.members(['reference'], ['keyedBy']);
      return { kind, reference: read.pointer('reference', true), keyedBy: read.optionalPointer('keyedBy') };
    case 'sum':
      read.members(['list', 'member', 'total']);
      return { kind, list: read.pointer('list', false), member: read.memberName('member'), total: read.integer('total') };
    case 'claim':
      read.members(['property']);
      return { kind, property: read.pointer('property', false) };
    case 'hostAssigned':
      read.members(['output']);
      return { kind, output: read.pointer('output', false) };
    case 'orderedPair':
      read.members(['references']);
      return { kind, references: read.pointerPair('references', false) };
    case 'uniqueBy':
      read.members(['list', 'member']);
      return { kind, list: read.pointer('list', false), member: read.memberName('member') };
    case 'acyclic':
      read.members(['reference']);
      return { kind, reference: read.pointer('reference', true) };
    case 'distinctPair':
      read.members(['references']);
      return { kind, references: read.pointerPair('references', true) };
    case 'uniquePair':
      read.members(['references']);
      return { kind, references: read.pointerPair('references', true) };
    case 'sameResolvedTarget':
      read.members(['anchor', 'members', 'through']);
      return {
        kind,
        anchor: read.pointer('anchor', false),
        members: read.pointer('members', true),
        through: read.pointer('through', false),
      };
  }
}

/** Pointers into the spec that name the relations a constraint needs (checked against the schema at install). */
export function constraintRelations(constraint: DeclaredConstraint): string[] {
  switch (constraint.kind) {
    case 'exclusive':
    case 'acyclic':
      return [constraint.reference];
    case 'distinctPair':
    case 'uniquePair':
      return [...constraint.references];
    case 'sameResolvedTarget':
      return [constraint.anchor, constraint.members];
    default:
      return [];
  }
}

/** Violations of the constraints that need nothing but the materialized, schema-valid spec. */
export function checkSpecConstraints(constraints: readonly DeclaredConstraint[], spec: JsonObject): SpecProblem[] {
  const problems: SpecProblem[] = [];
  for (const constraint of constraints) {
    const problem = checkSpecConstraint(constraint, spec);
    if (problem !== undefined) problems.push(problem);
  }
  return problems;
}

function checkSpecConstraint(constraint: DeclaredConstraint, spec: JsonObject): SpecProblem | undefined {
  switch (constraint.kind) {
    case 'orderedPair': {
      const [lowerPointer, upperPointer] = constraint.references;
      const lower = resolvePointer(spec, lowerPointer);
      const upper = resolvePointer(spec, upperPointer);
      // Declared over required numeric members (the schema enforced them); absent means nothing to order.
      if (typeof lower !== 'number' || typeof upper !== 'number' || lower <= upper) return undefined;
      return {
        pointer: upperPointer,
        message: `must be greater than or equal to ${lowerPointer} (orderedPair: ${upper} < ${lower})`,
      };
    }
    case 'sum': {
      const list = resolvePointer(spec, constraint.list);
      if (!Array.isArray(list)) return undefined;
      let total = 0;
      for (const element of list) {
        const value = isJsonObject(element) ? element[constraint.member] : undefined;
        if (typeof value === 'number') total += value;
      }
      if (total === constraint.total) return undefined;
      return {
        pointer: constraint.list,
        message: `the "${constraint.member}" members must sum to exactly ${constraint.total} (sum: they sum to ${total})`,
      };
    }
    case 'uniqueBy': {
      const list = resolvePointer(spec, constraint.list);
      if (!Array.isArray(list)) return undefined;
      const seen = new Map<string, number>();
      for (const [index, element] of list.entries()) {
        if (!isJsonObject(element) || element[constraint.member] === undefined) continue;
        // Canonical JSON makes 1 and 1.0 one value while "1" and 1 stay two.
        const key = canonicalJson(element[constraint.member]);
        const first = seen.get(key);
        if (first !== undefined) {
          return {
            pointer: appendPointer(appendPointer(constraint.list, index), constraint.member),
            message: `repeats the "${constraint.member}" of ${constraint.list}/${first} (uniqueBy)`,
          };
        }
        seen.set(key, index);
      }
      return undefined;
    }
    case 'hostAssigned':
      // The Host mints this output; a desired-state substitute at the same pointer is refused.
      if (resolvePointer(spec, constraint.output) === undefined) return undefined;
      return { pointer: constraint.output, message: `is assigned by the Host (hostAssigned output ${constraint.output}); remove it` };
    default:
      return undefined;
  }
}

/** Checks the members of one constraint entry and reads them with the pointer of the entry in errors. */
class EntryReader {
  constructor(
    private readonly entry: JsonObject,
    private readonly at: string,
  ) {}

  members(required: readonly string[], optional: readonly string[] = []): void {
    const kind = String(this.entry.kind);
    for (const member of Object.keys(this.entry)) {
      if (member !== 'kind' && !required.includes(member) && !optional.includes(member)) {
        throw new DeclaredConstraintError(`${this.at}: ${kind} has foreign member "${member}"`, 'malformed');
      }
    }
    for (const member of required) {
      if (this.entry[member] === undefined) throw new DeclaredConstraintError(`${this.at}: ${kind} needs "${member}"`, 'malformed');
    }
  }

  pointer(member: string, wildcardAllowed: boolean): string {
    return checkedPointer(this.entry[member], appendPointer(this.at, member), wildcardAllowed);
  }

  optionalPointer(member: string): string | undefined {
    return this.entry[member] === undefined ? undefined : this.pointer(member, false);
  }

  pointerPair(member: string, wildcardAllowed: boolean): readonly [string, string] {
    const value = this.entry[member];
    const at = appendPointer(this.at, member);
    if (!Array.isArray(value) || value.length !== 2) {
      throw new DeclaredConstraintError(`${at} must be an array of two JSON Pointers`, 'malformed');
    }
    const first = checkedPointer(value[0], at, wildcardAllowed);
    const second = checkedPointer(value[1], at, wildcardAllowed);
    if (first === second) throw new DeclaredConstraintError(`${at} must name two distinct members`, 'malformed');
    return [first, second];
  }

  memberName(member: string): string {
    const value = this.entry[member];
    if (typeof value !== 'string' || value.length === 0) {
      throw new DeclaredConstraintError(`${appendPointer(this.at, member)} must be a member name`, 'malformed');
    }
    return value;
  }

  integer(member: string): number {
    const value = this.entry[member];
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      throw new DeclaredConstraintError(`${appendPointer(this.at, member)} must be an integer`, 'malformed');
    }
    return value;
  }
}

function checkedPointer(value: JsonValue | undefined, at: string, wildcardAllowed: boolean): string {
  const tokens = typeof value === 'string' ? pointerTokens(value) : undefined;
  if (tokens === undefined || tokens.length === 0 || (!wildcardAllowed && tokens.includes('*'))) {
    throw new DeclaredConstraintError(`${at} must hold non-root JSON Pointers${wildcardAllowed ? '' : ' without wildcards'}`, 'malformed');
  }
  return value as string;
}

function isDeclaredConstraintKind(kind: string): kind is DeclaredConstraintKind {
  return (DECLARED_CONSTRAINT_KINDS as readonly string[]).includes(kind);
}
