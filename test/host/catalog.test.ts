// The installed catalog: exact 4-tuple lookups, and refusing what this Host cannot serve yet.
import { describe, expect, it } from 'vitest';
import { FormCatalog } from '../../src/host/catalog.js';
import { loadFormPackages } from '../../src/host/packages.js';
import { EXTERNAL_FAMILY, RANGE_COUNTER_DIR, RANGE_COUNTER_REF, RANGE_COUNTER_V2_DIR, RANGE_SEQUENCE_DIR, RANGE_SEQUENCE_REF } from './support/host-harness.js';

describe('FormCatalog', () => {
  const catalog = FormCatalog.install(loadFormPackages([RANGE_SEQUENCE_DIR, RANGE_COUNTER_DIR, RANGE_COUNTER_V2_DIR]));

  it('finds a Form only by its exact 4-tuple', () => {
    expect(catalog.exact(RANGE_SEQUENCE_REF)?.definition.kind).toBe('RangeSequence');
    expect(catalog.exact({ ...RANGE_SEQUENCE_REF, schemaDigest: RANGE_COUNTER_REF.schemaDigest })).toBeUndefined();
    expect(catalog.exact({ ...RANGE_COUNTER_REF, definitionVersion: '0.2.0' })).toBeUndefined();
  });

  it('lists definition versions of one group and kind side by side', () => {
    const versions = catalog.byGroupKind(RANGE_COUNTER_REF.apiVersion, 'RangeCounter').map((form) => form.formRef.definitionVersion);
    expect(versions.sort()).toEqual(['0.1.0', '0.2.0']);
    expect(catalog.byVersion(RANGE_COUNTER_REF.apiVersion, 'RangeCounter', '0.1.0')?.formRef).toEqual(RANGE_COUNTER_REF);
  });

  it('installs the whole external family, with its relations and outputs', () => {
    const family = FormCatalog.install(loadFormPackages([EXTERNAL_FAMILY]));
    expect(family.all()).toHaveLength(20);
    const sameTarget = family.all().find((form) => form.formRef.kind === 'SameTargetHolder');
    expect(sameTarget?.relations.map((relation) => relation.relation)).toEqual(['/anchor', '/members/*']);
    expect(family.all().find((form) => form.formRef.kind === 'AssignedCounter')?.outputs?.hostAssigned).toEqual(['assignedName', 'ordinal']);
  });
});
