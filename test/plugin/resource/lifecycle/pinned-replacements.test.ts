import { describe, expect, it } from 'vitest';
import type { ResourceContext } from '../../../../src/plugin/diag/host-diagnostics.js';
import { pinnedReplacementWarnings, referencesIn, resourceKey } from '../../../../src/plugin/resource/lifecycle/pinned-replacements.js';
import { triggerTypesInText } from '../../../../src/plugin/resource/lifecycle/replace-triggers.js';

const ref = (kind: string, name: string) => ({ apiVersion: 'resources.publisher.example', kind, name });
const ctx: ResourceContext = {
  typeName: 'takoform_resource',
  name: 'holder',
  space: 'demo',
  formRef: { apiVersion: 'resources.publisher.example', kind: 'SameTargetHolder', definitionVersion: '0.1.0', schemaDigest: 'sha256:' + '0'.repeat(64) },
  specAttribute: 'spec',
};

describe('references in a desired spec', () => {
  it('finds reference objects at any depth, with their pointers, and nothing else', () => {
    const spec = {
      target: ref('RangeSequence', 'a'),
      members: [ref('ConstraintMember', 'm1'), ref('ConstraintMember', 'm/2')],
      note: { kind: 'x', name: 'y' },
    };
    expect(referencesIn(spec)).toEqual([
      { pointer: '/spec/target', kind: 'RangeSequence', name: 'a' },
      { pointer: '/spec/members/0', kind: 'ConstraintMember', name: 'm1' },
      { pointer: '/spec/members/1', kind: 'ConstraintMember', name: 'm/2' },
    ]);
  });
});

describe('a resource that pins a target this run replaces', () => {
  const replaced = new Map([[resourceKey('ConstraintMember', 'demo', 'm1'), 'takoform_constraint_member']]);
  const spec = { members: [ref('ConstraintMember', 'm0'), ref('ConstraintMember', 'm1')] };

  it('warns once, on the reference, with the recipe naming the target type', () => {
    const [w, ...rest] = pinnedReplacementWarnings([spec], ctx, replaced, () => new Set());
    expect(rest).toEqual([]);
    expect(w!.severity).toBe('warning');
    expect(w!.path).toEqual(['spec']);
    expect(w!.detail).toMatch(/ConstraintMember "m1", which this plan replaces/);
    expect(w!.detail).toMatch(/replace_triggered_by = \[takoform_constraint_member\.<block name>\.uid\]/);
  });

  it('counts a target once, whether the stored spec or the planned one (re-pointed to another) refers to it', () => {
    const repointed = { members: [ref('ConstraintMember', 'm0'), ref('ConstraintMember', 'm9')] };
    expect(pinnedReplacementWarnings([spec, repointed], ctx, replaced, () => new Set())).toHaveLength(1);
    expect(pinnedReplacementWarnings([repointed, spec, spec], ctx, replaced, () => new Set())).toHaveLength(1);
  });

  it('is quiet when the configuration already triggers on the target type, or the target is in another space', () => {
    expect(pinnedReplacementWarnings([spec], ctx, replaced, () => new Set(['takoform_constraint_member']))).toEqual([]);
    expect(pinnedReplacementWarnings([spec], { ...ctx, space: 'other' }, replaced, () => new Set())).toEqual([]);
  });
});

describe('types named in replace_triggered_by', () => {
  it('reads HCL and JSON syntax, several per list, and ignores other lists', () => {
    const hcl = `
resource "takoform_same_target_holder" "h" {
  members = [takoform_constraint_member.m.name]
  lifecycle {
    replace_triggered_by = [
      takoform_constraint_member.m.uid,
      takoform_range_sequence.s["x"].uid,
    ]
  }
}`;
    expect(triggerTypesInText(hcl)).toEqual(['takoform_constraint_member', 'takoform_range_sequence']);
    expect(triggerTypesInText('{"lifecycle": [{"replace_triggered_by": ["${takoform_resource.g.uid}"]}]}')).toEqual(['takoform_resource']);
    expect(triggerTypesInText('depends_on = [takoform_range_sequence.s]')).toEqual([]);
  });
});
