import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatCatalog, parseCatalog, type LoadedCatalog } from '../../../src/plugin/catalog/catalog-file.js';
import { catalogDiagnostics, resourceTypesInConfiguration } from '../../../src/plugin/catalog/catalog-hints.js';

const loaded = (found: boolean, typeNames: string[] = [], file = '/m/.takoform.lock.json'): LoadedCatalog => ({
  catalog: {
    formatVersion: 1,
    forms: typeNames.map((typeName) => ({
      typeName,
      formRef: { apiVersion: 'g.example', kind: 'K', definitionVersion: '1.0.0', schemaDigest: 'sha256:x' },
      title: 'K',
      operations: [],
      immutableFields: [],
      desiredSchema: {},
    })),
  },
  source: file,
  file,
  found,
});

describe('resource types in the configuration', () => {
  it('reads the root module and the modules init recorded, skipping block comments', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'hints-'));
    writeFileSync(
      path.join(root, 'main.tf'),
      'resource "takoform_a" "x" {\n}\n/*\nresource "takoform_commented" "y" {}\n*/\nresource "aws_instance" "z" {}\n  resource takoform_unquoted "w" {}\n',
    );
    writeFileSync(path.join(root, 'extra.tf.json'), JSON.stringify({ resource: { takoform_json: { j: {} } } }));
    mkdirSync(path.join(root, 'modules/net'), { recursive: true });
    writeFileSync(path.join(root, 'modules/net/main.tf'), 'resource "takoform_in_module" "m" {}\n');
    mkdirSync(path.join(root, 'unused'), { recursive: true });
    writeFileSync(path.join(root, 'unused/main.tf'), 'resource "takoform_unused" "u" {}\n');
    mkdirSync(path.join(root, '.terraform/modules'), { recursive: true });
    writeFileSync(
      path.join(root, '.terraform/modules/modules.json'),
      JSON.stringify({
        Modules: [
          { Key: '', Source: '', Dir: '.' },
          { Key: 'net', Source: './modules/net', Dir: 'modules/net' },
        ],
      }),
    );
    const found = resourceTypesInConfiguration(root, {});
    expect([...found.keys()].sort()).toEqual(['takoform_a', 'takoform_in_module', 'takoform_json', 'takoform_unquoted']);
    expect(found.get('takoform_a')).toBe('main.tf:1');
    expect(found.get('takoform_unquoted')).toBe('main.tf:7');
    expect(found.get('takoform_in_module')).toBe(path.join('modules', 'net', 'main.tf') + ':1');
  });
});

describe('catalog diagnostics', () => {
  it('reads an entry whose properties clash as no type: an error where a block uses it, a warning elsewhere, never "not in the catalog"', () => {
    const clashing = {
      typeName: 'takoform_clash',
      formRef: { apiVersion: 'g.example', kind: 'Clash', definitionVersion: '1.0.0', schemaDigest: 'sha256:c' },
      title: 'Clash',
      operations: [],
      immutableFields: [],
      desiredSchema: { type: 'object', additionalProperties: false, properties: { retryLimit: { type: 'integer' }, retry_limit: { type: 'integer' } } },
    };
    const file = '/m/.takoform.lock.json';
    const catalog = parseCatalog(JSON.stringify({ formatVersion: 1, forms: [clashing, { ...clashing, typeName: 'takoform_ok', desiredSchema: {} }] }), file);
    expect(catalog.forms.map((f) => f.typeName)).toEqual(['takoform_ok']);
    expect(formatCatalog(catalog)).not.toContain('takoform_clash');
    const on = { catalog, source: file, file, found: true };
    const [used, ...rest] = catalogDiagnostics(on, new Map([['takoform_clash', 'main.tf:3']]), {});
    expect(rest).toEqual([]);
    expect(used).toMatchObject({ severity: 'error', summary: 'Form without a typed resource type' });
    expect(used!.detail).toContain('the properties `retryLimit` and `retry_limit` both become the attribute `retry_limit`');
    expect(used!.detail).toContain('The configuration uses it (main.tf:3)');
    expect(used!.detail).toContain('id = "g.example/Clash/1.0.0/sha256:c/SPACE/RESOURCE_NAME"');
    expect(catalogDiagnostics(on, new Map([['takoform_ok', 'main.tf:1']]), {})).toEqual([
      expect.objectContaining({ severity: 'warning', summary: 'Form without a typed resource type' }),
    ]);
  });

  it('is an error naming the file, TAKOFORM_CATALOG and the command when a used type is missing', () => {
    const [d] = catalogDiagnostics(
      loaded(true, ['takoform_b']),
      new Map([
        ['takoform_a', 'main.tf:3'],
        ['takoform_resource', 'main.tf:9'],
      ]),
      { TAKOFORM_ENDPOINT: 'http://127.0.0.1:8787' },
    );
    expect(d!.severity).toBe('error');
    expect(d!.summary).toBe('Resource type not in the Form catalog');
    expect(d!.detail).toContain('/m/.takoform.lock.json (set TAKOFORM_CATALOG to use another file) has no type takoform_a (main.tf:3)');
    expect(d!.detail).toContain('terraform-provider-takoform catalog lock --endpoint http://127.0.0.1:8787 --space SPACE --package DIR');
  });

  it('suggests a close catalog name for a typo', () => {
    const [d] = catalogDiagnostics(
      loaded(true, ['takoform_range_sequence', 'takoform_range_counter']),
      new Map([
        ['takoform_range_sequnce', 'main.tf:4'],
        ['takoform_other_thing', 'main.tf:9'],
      ]),
      {},
    );
    expect(d!.detail).toContain('takoform_range_sequnce (main.tf:4; did you mean takoform_range_sequence?)');
    expect(d!.detail).toContain('takoform_other_thing (main.tf:9)');
  });

  it('warns when there is no catalog or an empty one and nothing used is missing; silent otherwise', () => {
    expect(catalogDiagnostics(loaded(false), new Map([['takoform_resource', 'main.tf:1']]), {})).toEqual([
      expect.objectContaining({ severity: 'warning', summary: 'No Form catalog' }),
    ]);
    expect(catalogDiagnostics(loaded(true), new Map(), {})).toEqual([expect.objectContaining({ severity: 'warning', summary: 'Empty Form catalog' })]);
    expect(catalogDiagnostics(loaded(true, ['takoform_a']), new Map([['takoform_a', 'main.tf:1']]), {})).toEqual([]);
  });

  it('says TAKOFORM_CATALOG named the file when it did', () => {
    const [d] = catalogDiagnostics(loaded(false, [], '/elsewhere/cat.json'), new Map([['takoform_a', 'main.tf:1']]), {
      TAKOFORM_CATALOG: '/elsewhere/cat.json',
    });
    expect(d!.summary).toBe('No Form catalog');
    expect(d!.detail).toContain('/elsewhere/cat.json (named by TAKOFORM_CATALOG)');
    expect(d!.detail).toContain('--out /elsewhere/cat.json');
  });
});
