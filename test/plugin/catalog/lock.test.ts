import { describe, expect, it } from 'vitest';
import type { CatalogForm } from '../../../src/plugin/catalog/catalog-file.js';
import { formatCatalog, parseCatalog } from '../../../src/plugin/catalog/catalog-file.js';
import { assignTypeNames } from '../../../src/plugin/catalog/lock.js';

const form = (group: string, kind: string, version: string, digit: string): CatalogForm => ({
  typeName: '',
  formRef: { apiVersion: group, kind, definitionVersion: version, schemaDigest: `sha256:${digit.repeat(64)}` },
  title: kind,
  operations: ['create'],
  immutableFields: [],
  desiredSchema: { type: 'object' },
});

describe('resource type naming', () => {
  it('uses takoform_<snake kind> and disambiguates groups and versions', () => {
    const named = assignTypeNames(
      [
        form('resources.publisher.example', 'RangeSequence', '0.1.0', 'a'),
        form('resources.publisher.example', 'RangeCounter', '0.1.0', 'b'),
        form('resources.publisher.example', 'RangeCounter', '0.2.0', 'c'),
        form('other.publisher.example', 'RangeGauge', '0.1.0', 'd'),
        form('resources.publisher.example', 'RangeGauge', '0.1.0', 'e'),
      ],
      [],
    );
    expect(named.map((f) => f.typeName)).toEqual([
      'takoform_range_sequence',
      'takoform_range_counter_v0_1_0',
      'takoform_range_counter_v0_2_0',
      'takoform_range_gauge_other',
      'takoform_range_gauge_resources',
    ]);
  });
  it('never renames a locked type', () => {
    const previous = [{ ...form('resources.publisher.example', 'RangeCounter', '0.1.0', 'b'), typeName: 'takoform_range_counter' }];
    const named = assignTypeNames(
      [form('resources.publisher.example', 'RangeCounter', '0.1.0', 'b'), form('resources.publisher.example', 'RangeCounter', '0.2.0', 'c')],
      previous,
    );
    expect(named.map((f) => f.typeName)).toEqual(['takoform_range_counter', 'takoform_range_counter_v0_2_0']);
  });
  it('formats deterministically and parses back', () => {
    const catalog = { formatVersion: 1, forms: assignTypeNames([form('g.example', 'B', '1.0.0', 'b'), form('g.example', 'A', '1.0.0', 'a')], []) };
    const text = formatCatalog(catalog);
    expect(formatCatalog(parseCatalog(text, 'test'))).toBe(text);
    expect(text.indexOf('takoform_a')).toBeLessThan(text.indexOf('takoform_b'));
  });
});
