// What a Host refusal at plan time means for the plan (docs/resources.md, "What a plan checks
// against the Host"). The plan judges one resource against the Host as it is *now*, but this
// very run may change the other resources a refusal depends on, so:
//
// * `cross-resource`: the refusal depends on other resources' current state (a declared
//   constraint over relations or stored values, or a relation target that is missing). The
//   plan warns and continues from locally materialized values; apply prepares again and
//   refuses with the same diagnostic if it still holds.
// * `replacement`: an in-place update the Host refuses because the field is immutable (the
//   catalog did not know it, e.g. locked without packages): planned as a replacement.
// * `configuration`: the resource's own configuration, the Form, access or the Host itself:
//   an error, as before.
//
// Host API v1 puts the rule only in the message (the reference Host ends it with the rule
// kind in parentheses, e.g. "... (claim)"), so the rule is read from there; a Host that says
// nothing recognisable is treated as `configuration` (an error: never hide a refusal).
import type { HostErrorCode } from '../../host-client/index.js';

/** The declared constraint kinds of Host API v1 §18 whose verdict depends on other resources. */
export const CROSS_RESOURCE_RULES = ['exclusive', 'claim', 'uniquePair', 'acyclic', 'distinctPair', 'sameResolvedTarget'] as const;
/** The kinds decided by the resource's own spec alone (also checked offline when the catalog has them). */
export const OWN_SPEC_RULES = ['orderedPair', 'sum', 'uniqueBy', 'hostAssigned'] as const;

export type ConstraintRule = (typeof CROSS_RESOURCE_RULES)[number] | (typeof OWN_SPEC_RULES)[number];

export type RefusalClass =
  | { readonly kind: 'cross-resource'; readonly rule: ConstraintRule | 'missing relation target' }
  | { readonly kind: 'replacement' }
  | { readonly kind: 'configuration'; readonly rule?: ConstraintRule };

export interface Refusal {
  readonly code: HostErrorCode;
  readonly message: string;
  /** True when the Host's pointer lands on a reference to another resource. */
  readonly atRelation: boolean;
  /** True for an update of an existing resource (a create cannot be "immutable"). */
  readonly update: boolean;
}

/** The declared constraint rule a Host message names in trailing parentheses, if any. */
export function ruleOf(message: string): ConstraintRule | undefined {
  const m = /\((\w+)\)\s*\.?\s*$/.exec(message);
  const rule = m?.[1];
  return [...CROSS_RESOURCE_RULES, ...OWN_SPEC_RULES].find((r) => r === rule);
}

export function classifyRefusal(r: Refusal): RefusalClass {
  if (r.code === 'resource_not_found' && r.atRelation) return { kind: 'cross-resource', rule: 'missing relation target' };
  if (r.code !== 'invalid_argument') return { kind: 'configuration' };
  const rule = ruleOf(r.message);
  if (rule && (CROSS_RESOURCE_RULES as readonly string[]).includes(rule)) return { kind: 'cross-resource', rule };
  if (rule) return { kind: 'configuration', rule };
  if (r.update && /\bis immutable\b.*\breplacement\b/.test(r.message)) return { kind: 'replacement' };
  return { kind: 'configuration' };
}
