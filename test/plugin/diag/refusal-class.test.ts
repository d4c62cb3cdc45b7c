// The plan-time refusal classification (docs/resources.md, "What a plan checks against the
// Host"): one row per declared constraint kind with the reference Host's own message, and
// every Host code of the v1 taxonomy.
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type HostErrorCode } from '../../../src/host-client/index.js';
import { classifyRefusal, CROSS_RESOURCE_RULES, OWN_SPEC_RULES } from '../../../src/plugin/diag/refusal-class.js';

const invalid = (message: string, atRelation = false, update = false) => ({ code: 'invalid_argument' as const, message, atRelation, update });

describe('classifyRefusal', () => {
  // Messages as src/host/resources/resolved-constraints.ts and src/host/constraints.ts write them.
  const constraintRows: [string, string, string][] = [
    ['exclusive', '/spec/target another CounterReservation already holds "fam-seq" (exclusive)', 'cross-resource'],
    ['claim', '/spec/claim is already claimed by another ClaimTicket of your tenant (claim)', 'cross-resource'],
    ['uniquePair', '/spec/right the pair (a, b) is already held by another UniquePairHolder (uniquePair)', 'cross-resource'],
    ['acyclic', '/spec/next closes a cycle back to this resource (acyclic)', 'cross-resource'],
    ['distinctPair', '/spec/right resolves to the same resource as /spec/left (distinctPair)', 'cross-resource'],
    ['sameResolvedTarget', '/spec/members/0 reaches "n1" through /through, not the resource /spec/anchor resolves to (sameResolvedTarget)', 'cross-resource'],
    ['orderedPair', '/spec/lower must be less than or equal to /spec/upper (orderedPair)', 'configuration'],
    ['sum', '/spec/weights: weight must sum to 100, not 90 (sum)', 'configuration'],
    ['uniqueBy', '/spec/rows/1/key repeats the "key" of /rows/0 (uniqueBy)', 'configuration'],
    ['hostAssigned', '/spec/assignedName is assigned by the Host (hostAssigned)', 'configuration'],
  ];
  it.each(constraintRows)('%s → %s', (rule, message, kind) => {
    const c = classifyRefusal(invalid(message));
    expect(c.kind).toBe(kind);
    expect('rule' in c ? c.rule : undefined).toBe(rule);
  });

  it('covers every declared constraint kind of Host API v1 §18', () => {
    expect([...CROSS_RESOURCE_RULES, ...OWN_SPEC_RULES].sort()).toEqual(constraintRows.map((r) => r[0]).sort());
  });

  it('an immutable field on update is a replacement; on create it is not', () => {
    const msg = '/spec/externalServices is immutable for RangeCounter: changing it needs a replacement';
    expect(classifyRefusal(invalid(msg, false, true)).kind).toBe('replacement');
    expect(classifyRefusal(invalid(msg, false, false)).kind).toBe('configuration');
  });

  it('a schema refusal or an unrecognised message stays an error', () => {
    expect(classifyRefusal(invalid('/spec/lower must be integer')).kind).toBe('configuration');
    expect(classifyRefusal(invalid('something (notARule)')).kind).toBe('configuration');
  });

  // Every code of the taxonomy: only a missing relation target is cross-resource.
  const codes = Object.keys(ERROR_CODES) as HostErrorCode[];
  it.each(codes)('%s', (code) => {
    const atRelation = classifyRefusal({ code, message: 'refused', atRelation: true, update: false });
    const elsewhere = classifyRefusal({ code, message: 'refused', atRelation: false, update: true });
    expect(atRelation.kind).toBe(code === 'resource_not_found' ? 'cross-resource' : 'configuration');
    expect(elsewhere.kind).toBe('configuration');
  });
});
