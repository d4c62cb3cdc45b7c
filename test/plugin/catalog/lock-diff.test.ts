import { describe, expect, it } from 'vitest';
import type { Catalog, CatalogForm } from '../../../src/plugin/catalog/catalog-file.js';
import { diffCatalogs, formatDiff, lossesOf } from '../../../src/plugin/catalog/lock-diff.js';

const ref = (kind: string, version = '0.1.0', digit = 'a') => ({
  apiVersion: 'resources.publisher.example',
  kind,
  definitionVersion: version,
  schemaDigest: `sha256:${digit.repeat(64)}`,
});
const entry = (typeName: string, kind: string, extra: Partial<CatalogForm> = {}): CatalogForm => ({
  typeName,
  formRef: ref(kind),
  title: kind,
  operations: ['create', 'read'],
  immutableFields: [],
  desiredSchema: { type: 'object' },
  ...extra,
});
const verified: Partial<CatalogForm> = {
  role: 'identity',
  immutableFields: ['/x'],
  outputSchema: { type: 'object' },
  constraints: [{ kind: 'orderedPair', references: ['/a', '/b'] }],
  packageVerified: true,
};
const catalog = (...forms: CatalogForm[]): Catalog => ({ formatVersion: 1, forms });

describe('catalog diff', () => {
  it('is empty for the same catalog', () => {
    const c = catalog(entry('takoform_a', 'A', verified));
    expect(diffCatalogs(c, c).changes).toEqual([]);
    expect(formatDiff(diffCatalogs(c, c))).toBe('no changes\n');
    expect(lossesOf(diffCatalogs(c, c))).toEqual({ removals: [], metadata: [] });
  });

  it('names added, removed and re-pointed types, and counts removals and re-points as losses', () => {
    const before = catalog(entry('takoform_a', 'A'), entry('takoform_b', 'B'));
    const after = catalog(entry('takoform_b', 'B', { formRef: ref('B', '0.2.0', 'c') }), entry('takoform_c', 'C'));
    const diff = diffCatalogs(before, after);
    expect(formatDiff(diff).split('\n')).toEqual([
      '- takoform_a: resources.publisher.example/A@0.1.0 (sha256:' + 'a'.repeat(64) + ')',
      '~ takoform_b: re-pointed from resources.publisher.example/B@0.1.0 (sha256:' +
        'a'.repeat(64) +
        ') to resources.publisher.example/B@0.2.0 (sha256:' +
        'c'.repeat(64) +
        ')',
      '+ takoform_c: resources.publisher.example/C@0.1.0 (sha256:' + 'a'.repeat(64) + ') (no package metadata)',
      '',
    ]);
    const losses = lossesOf(diff);
    expect(losses.removals).toHaveLength(2);
    expect(losses.removals[0]).toMatch(/^takoform_a .* would be removed/);
    expect(losses.removals[1]).toMatch(/^takoform_b would be re-pointed/);
    expect(losses.metadata).toEqual([]);
  });

  it('names each piece of package metadata lost or gained', () => {
    const withPkg = catalog(entry('takoform_a', 'A', verified));
    const without = catalog(entry('takoform_a', 'A'));
    const lost = diffCatalogs(withPkg, without);
    expect(formatDiff(lost)).toBe('~ takoform_a: loses role, immutableFields, outputSchema, constraints\n');
    expect(lossesOf(lost).metadata).toEqual([
      'takoform_a would lose role, immutableFields, outputSchema, constraints (no verified Form Package for takoform_a was given)',
    ]);
    const gained = diffCatalogs(without, withPkg);
    expect(formatDiff(gained)).toBe('~ takoform_a: gains role, immutableFields, outputSchema, constraints\n');
    expect(lossesOf(gained)).toEqual({ removals: [], metadata: [] });
  });

  it('shows other changes of one Form (operations) without calling them losses', () => {
    const diff = diffCatalogs(catalog(entry('takoform_a', 'A')), catalog(entry('takoform_a', 'A', { operations: ['create', 'read', 'update'] })));
    expect(formatDiff(diff)).toBe('~ takoform_a: operations create, read → create, read, update\n');
    expect(lossesOf(diff)).toEqual({ removals: [], metadata: [] });
  });

  it('treats a first lock as all added', () => {
    expect(formatDiff(diffCatalogs(undefined, catalog(entry('takoform_a', 'A', verified))))).toMatch(/^\+ takoform_a: .*\(verified package\)\n$/);
  });
});
