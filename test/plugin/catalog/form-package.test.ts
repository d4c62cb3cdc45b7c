import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFormPackage } from '../../../src/plugin/catalog/form-package.js';
import { FormResourceType } from '../../../src/plugin/resource/form-resource-type.js';
import { GENERIC_FORMS } from '../../support/paths.js';

describe('Form Package enrichment', () => {
  it('reads a verified package: role, immutable fields, capabilities', () => {
    const pkg = readFormPackage(path.join(GENERIC_FORMS, 'range-counter'));
    expect(pkg.formRef.schemaDigest).toBe('sha256:0c1f2f3fc0bc03d5a528aa286e50df3fa1a2b735da9690e6fe20c999115c9c36');
    expect(pkg.packageDigest).toBe('sha256:99b3bb00ce461b2c6d25cc4405a921d7cc35f864695c8256fc4eaa5d2f078641');
    expect(pkg.role).toBe('identity');
    expect(pkg.immutableFields).toEqual(['/externalServices']);
  });

  it('refuses a package whose Definition bytes were changed', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pkg-'));
    cpSync(path.join(GENERIC_FORMS, 'range-sequence'), dir, { recursive: true });
    writeFileSync(path.join(dir, 'definition.json'), '{"apiVersion":"x"}');
    expect(() => readFormPackage(dir)).toThrow(/does not match its listed size and digest/);
  });

  it('gives typed computed outputs when the package has an outputSchema', () => {
    const pkg = readFormPackage(path.join(GENERIC_FORMS, 'assigned-counter'));
    const rt = new FormResourceType({
      typeName: 'takoform_assigned_counter',
      formRef: pkg.formRef,
      title: 'x',
      operations: [...pkg.lifecycleCapabilities],
      immutableFields: [...pkg.immutableFields],
      desiredSchema: pkg.desiredSchema,
      ...(pkg.outputSchema ? { outputSchema: pkg.outputSchema } : {}),
    });
    const outputs = rt.schema.block.attributes.find((a) => a.name === 'outputs')!;
    expect(outputs.computed).toBe(true);
    expect(outputs.nested!.attributes.map((a) => [a.name, a.computed, a.required ?? false, a.optional ?? false])).toEqual([
      ['assigned_name', true, false, false],
      ['ordinal', true, false, false],
    ]);
  });
});
