import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CatalogForm } from '../../../src/plugin/catalog/catalog-file.js';
import { FormResourceType } from '../../../src/plugin/resource/form-resource-type.js';
import { formAttributeClashes, fromSpec, toSpec } from '../../../src/plugin/schema/form-mapping.js';
import { topLevelAttributeName } from '../../../src/plugin/schema/names.js';
import { toProtoSchema } from '../../../src/plugin/grpc/convert.js';
import { TfNumber } from '../../../src/plugin/values/tf-number.js';
import { typeToJson } from '../../../src/plugin/values/tf-type.js';
import { GENERIC_FORMS } from '../../support/paths.js';

function formFromPackage(dir: string, typeName: string): CatalogForm {
  const def = JSON.parse(readFileSync(path.join(GENERIC_FORMS, dir, 'definition.json'), 'utf8'));
  const index = JSON.parse(readFileSync(path.join(GENERIC_FORMS, dir, 'package-index.json'), 'utf8'));
  return {
    typeName,
    formRef: index.formRef,
    title: def.title,
    operations: def.lifecycleCapabilities,
    immutableFields: def.immutableFields ?? [],
    desiredSchema: def.desiredSchema,
  };
}

const attr = (rt: FormResourceType, name: string) => rt.schema.block.attributes.find((a) => a.name === name);

describe('RangeSequence mapping', () => {
  const rt = new FormResourceType(formFromPackage('range-sequence', 'takoform_range_sequence'));
  it('maps required integers to required numbers and the defaulted enum to optional+computed', () => {
    expect(attr(rt, 'lower')).toMatchObject({ required: true, type: { kind: 'number' } });
    expect(attr(rt, 'upper')).toMatchObject({ required: true, type: { kind: 'number' } });
    expect(attr(rt, 'mode')).toMatchObject({ optional: true, computed: true, type: { kind: 'string' } });
  });
  it('has the envelope attributes', () => {
    expect(attr(rt, 'name')).toMatchObject({ required: true });
    expect(attr(rt, 'space')).toMatchObject({ optional: true, computed: true });
    for (const a of ['id', 'uid', 'generation', 'revision', 'form_ref', 'conditions_json', 'ready', 'outputs_json']) expect(attr(rt, a)?.computed).toBe(true);
  });
  it('round-trips a spec and refuses non-integers for integer properties', () => {
    const values = fromSpec(rt.fields, { lower: 3, upper: 6, mode: 'safe' });
    expect(toSpec(rt.fields, values)).toEqual({ lower: 3, upper: 6, mode: 'safe' });
    expect(() => toSpec(rt.fields, { ...values, upper: TfNumber.of(1.5) })).toThrow(/not an integer/);
    expect(() => toSpec(rt.fields, { ...values, upper: TfNumber.fromDecimal('12345678901234567891') })).toThrow(/exactly/);
  });
  it('produces a protocol schema core accepts (names, one of type/nested_type)', () => {
    const proto = toProtoSchema(rt.schema);
    for (const a of proto.block!.attributes!) {
      expect(a.name).toMatch(/^[a-z0-9_]+$/);
      expect(!!a.type !== !!a.nested_type).toBe(true);
      expect(a.required && a.optional).toBe(false);
    }
  });
});

describe('RangeCounter mapping', () => {
  const rt = new FormResourceType(formFromPackage('range-counter', 'takoform_range_counter'));
  it('maps the standard-service slot list to a nested list with snake_case names', () => {
    const slots = attr(rt, 'external_services')!;
    expect(slots).toMatchObject({ optional: true, computed: true, nested: { nesting: 'LIST' } });
    const inner = slots.nested!.attributes;
    expect(inner.find((a) => a.name === 'name')).toMatchObject({ required: true });
    expect(inner.find((a) => a.name === 'required')).toMatchObject({ optional: true, computed: true });
    const service = inner.find((a) => a.name === 'service')!;
    expect(service.nested!.attributes.map((a) => a.name)).toEqual(['api_version', 'protocol']);
    expect(service.nested!.attributes.find((a) => a.name === 'api_version')).toMatchObject({ optional: true, computed: true });
  });
  it('marks the immutable field for replacement', () => {
    expect([...rt.replaceAttributes]).toEqual(['external_services']);
  });
  it('fills const values the user leaves out', () => {
    const values = fromSpec(rt.fields, {
      lower: 1,
      upper: 2,
      externalServices: [{ name: 'OBJECTS', service: { apiVersion: 'standards.takoform.com/v1', protocol: 'com.amazonaws.s3' } }],
    });
    const slot = (values.external_services as any[])[0];
    const withoutConst = { ...values, external_services: [{ ...slot, service: { ...slot.service, api_version: null } }] };
    expect(toSpec(rt.fields, withoutConst).externalServices).toEqual([
      { name: 'OBJECTS', service: { apiVersion: 'standards.takoform.com/v1', protocol: 'com.amazonaws.s3' } },
    ]);
  });
  it('has a stable implied type', () => {
    expect(JSON.stringify(typeToJson(rt.valueType))).toContain(
      '"external_services":["list",["object",{"name":"string","required":"bool","service":["object",{"api_version":"string","protocol":"string"}]}]]',
    );
  });
});

describe('attribute naming rule', () => {
  it('prefixes names that collide with envelope or reserved names', () => {
    expect(topLevelAttributeName('name')).toBe('spec_name');
    expect(topLevelAttributeName('count')).toBe('spec_count');
    expect(topLevelAttributeName('externalServices')).toBe('external_services');
    expect(topLevelAttributeName('URLPath')).toBe('url_path');
  });
});

describe('properties that become one attribute name', () => {
  const closed = (properties: Record<string, unknown>) => ({ type: 'object', additionalProperties: false, properties });
  it('are found at the top, in nested objects, lists and maps, and in the outputs, each named with its path', () => {
    expect(
      formAttributeClashes({ desiredSchema: closed({ retryLimit: { type: 'integer' }, retry_limit: { type: 'integer' }, other: { type: 'string' } }) }),
    ).toEqual(['the properties `retryLimit` and `retry_limit` both become the attribute `retry_limit`']);
    // `outputs` is reserved, so it meets a property that is spec_outputs by itself.
    expect(formAttributeClashes({ desiredSchema: closed({ outputs: { type: 'string' }, specOutputs: { type: 'string' } }) })).toEqual([
      'the properties `outputs` and `specOutputs` both become the attribute `spec_outputs`',
    ]);
    const nested = closed({
      a: closed({ b: { type: 'array', items: closed({ xY: { type: 'string' }, x_y: { type: 'string' }, 'x-y': { type: 'string' } }) } }),
    });
    expect(formAttributeClashes({ desiredSchema: nested, outputSchema: closed({ hostName: { type: 'string' }, host_name: { type: 'string' } }) })).toEqual([
      'the properties `xY`, `x_y` and `x-y` of `a.b` all become the attribute `x_y`',
      'the properties `hostName` and `host_name` of `outputs` both become the attribute `host_name`',
    ]);
  });
  it('are none in a Form whose names map apart (a property outputs beside typed outputs included)', () => {
    expect(
      formAttributeClashes({
        desiredSchema: closed({ outputs: closed({ format: { type: 'string' } }), name: { type: 'string' } }),
        outputSchema: closed({ outputs: { type: 'string' } }),
      }),
    ).toEqual([]);
  });
});

describe('references', () => {
  const rt = new FormResourceType(formFromPackage('counter-reservation', 'takoform_counter_reservation'));
  it('map a relation with constant group and kind to the target name', () => {
    expect(attr(rt, 'target')).toMatchObject({ required: true, type: { kind: 'string' } });
    expect(attr(rt, 'target')!.description).toMatch(/Name of the RangeSequence/);
    expect(toSpec(rt.fields, { target: 'range-sequence' })).toEqual({
      target: { apiVersion: 'resources.publisher.example', kind: 'RangeSequence', name: 'range-sequence' },
    });
    expect(fromSpec(rt.fields, { target: { apiVersion: 'resources.publisher.example', kind: 'RangeSequence', name: 'x' } }).target).toBe('x');
  });
  it('map attachment Forms without update to replacement on every desired attribute', () => {
    expect([...rt.replaceAttributes]).toEqual(['target']);
  });
});

describe('every desired schema in the shared reference data maps', () => {
  // Every Form Definition (Interface and Binding Definitions share the file name but carry no desiredSchema).
  const definitions = readdirRecursive(path.resolve(GENERIC_FORMS, '..', '..', '..', '..', '..'), 'definition.json').filter(
    (f) => 'desiredSchema' in JSON.parse(readFileSync(f, 'utf8')),
  );
  it(`maps all ${definitions.length} Form Definitions to valid protocol schemas`, () => {
    expect(definitions.length).toBe(30);
    for (const file of definitions) {
      const def = JSON.parse(readFileSync(file, 'utf8'));
      const rt = new FormResourceType({
        typeName: `takoform_${def.kind.toLowerCase()}`,
        formRef: { apiVersion: def.apiVersion, kind: def.kind, definitionVersion: def.definitionVersion, schemaDigest: 'sha256:' + '0'.repeat(64) },
        title: def.title,
        operations: def.lifecycleCapabilities ?? [],
        immutableFields: def.immutableFields ?? [],
        desiredSchema: def.desiredSchema,
        ...(def.outputSchema ? { outputSchema: def.outputSchema } : {}),
      });
      const walk = (attrs: readonly any[]) => {
        const names = new Set<string>();
        for (const a of attrs) {
          expect(a.name, file).toMatch(/^[a-z0-9_]+$/);
          expect(names.has(a.name), `${file}: duplicate ${a.name}`).toBe(false);
          names.add(a.name);
          expect(!!a.type !== !!a.nested_type, `${file}: ${a.name}`).toBe(true);
          expect(a.required || a.optional || a.computed, `${file}: ${a.name}`).toBe(true);
          if (a.nested_type) walk(a.nested_type.attributes);
        }
      };
      walk(toProtoSchema(rt.schema).block!.attributes!);
    }
  });
});

function readdirRecursive(dir: string, name: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? readdirRecursive(path.join(dir, e.name), name) : e.name === name ? [path.join(dir, e.name)] : [],
  );
}
