// The hostile-input scenario with small counts (npm test / CI), and a few concrete cases
// through the real plugin process, so that a failure names one clear reason.
import { encode } from '@msgpack/msgpack';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diagnostic__Output } from '../../src/plugin/generated/types/tfplugin6/Diagnostic.js';
import { FormResourceType } from '../../src/plugin/resource/form-resource-type.js';
import { GENERIC_TYPE, GENERIC_TYPE_NAME } from '../../src/plugin/resource/generic-resource.js';
import { RESOURCE_STATE_VERSION } from '../../src/plugin/resource/state-upgrade.js';
import { jsonToDynamic } from '../../src/plugin/schema/form-mapping.js';
import { encodeMsgpack } from '../../src/plugin/values/msgpack.js';
import { TfNumber } from '../../src/plugin/values/tf-number.js';
import { objectValue, type TfValue } from '../../src/plugin/values/tf-value.js';
import { startPluginClient, type PluginClient } from '../support/plugin-client.js';
import { catalogText, loadForms, runHostileInput } from './hostile-input.js';

describe('hostile input (reliability scenario, small counts)', () => {
  it('refuses every negative fixture, survives fuzzed configs and msgpack, and reports malformed Host answers', async () => {
    const seed = Number(process.env.HOSTILE_SEED ?? 20260130);
    const report = await runHostileInput({ seed, fuzzRuns: Number(process.env.HOSTILE_RUNS ?? 60) });
    expect(report.violations).toEqual([]);
    for (const key of ['negative-fixtures', 'negative-fixtures:tofu', 'fuzz:config', 'fuzz:config:planned', 'fuzz:msgpack', 'malformed-responses'])
      expect(report.counters[key], key).toBeGreaterThan(0);
  }, 300_000);
});

// The plugin alone, with every Form in its catalog and a Host address where nothing listens:
// all of these must be answered without the Host.
describe('concrete hostile inputs through the plugin process', () => {
  const forms = loadForms();
  const typeOf = (name: string) => new FormResourceType(forms.find((f) => f.typeName === name)!.catalogForm);
  const queue = typeOf('takoform_edge_at_least_once_queue');
  const sequence = typeOf('takoform_range_sequence');
  const counter = typeOf('takoform_range_counter');
  let plugin: PluginClient;

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hostile-concrete-'));
    writeFileSync(path.join(dir, '.takoform.lock.json'), catalogText(forms));
    plugin = await startPluginClient({
      cwd: dir,
      env: { TAKOFORM_ENDPOINT: 'http://127.0.0.1:9', TAKOFORM_TOKEN: 'unused-token', TAKOFORM_SPACE: 'concrete' },
      timeoutMs: 10_000,
    });
  });
  afterAll(async () => {
    await plugin?.shutdown();
  });

  /** A full configuration object: every attribute null except the given ones. */
  const config = (rt: FormResourceType, values: Record<string, TfValue>) =>
    objectValue(
      Object.keys((rt.valueType as { attributes: object }).attributes).map((k) => [k, k in values ? values[k]! : k === 'name' ? 'concrete' : null] as const),
    );
  const errorsOf = (diags: Diagnostic__Output[]) => diags.filter((d) => d.severity === 'ERROR');
  const pathOf = (d: Diagnostic__Output | undefined) =>
    d?.attribute?.steps.map((s) => s.attribute_name ?? s.element_key_string ?? Number(s.element_key_int)) ?? [];

  it('refuses an Edge queue fixture value offline, pointing at the attribute', async () => {
    const res = await plugin.validateResourceConfig({
      type_name: queue.typeName,
      config: {
        msgpack: encodeMsgpack(config(queue, { delivery_delay_seconds: TfNumber.of(-1), message_retention_seconds: TfNumber.of(345600) }), queue.valueType),
      },
    });
    const [error] = errorsOf(res.diagnostics);
    expect(error?.summary).toBe('Value not allowed by the Form');
    expect(pathOf(error)).toEqual(['delivery_delay_seconds']);
  });

  it('refuses the RangeCounter negative fixture as a takoform_resource spec offline, at `spec`', async () => {
    const ref = counter.form.formRef;
    const generic = objectValue(
      Object.keys((GENERIC_TYPE as { attributes: object }).attributes).map((k) => {
        const v: Record<string, TfValue> = {
          api_version: ref.apiVersion,
          kind: ref.kind,
          definition_version: ref.definitionVersion,
          schema_digest: ref.schemaDigest,
          name: 'g',
          spec: jsonToDynamic({ lower: 1, upper: 2, unexpected: true }),
        };
        return [k, v[k] ?? null] as const;
      }),
    );
    const res = await plugin.validateResourceConfig({ type_name: GENERIC_TYPE_NAME, config: { msgpack: encodeMsgpack(generic, GENERIC_TYPE) } });
    const [error] = errorsOf(res.diagnostics);
    expect(pathOf(error)).toEqual(['spec']);
    expect(error?.detail).toMatch(/spec\.unexpected is not part of the Form/);
  });

  it('refuses list items that the Host would see as duplicates once its defaults are filled in', async () => {
    const slot = (required: boolean | null) =>
      objectValue([
        ['name', 'OBJECTS'],
        ['required', required],
        [
          'service',
          objectValue([
            ['api_version', null],
            ['protocol', 'com.amazonaws.s3'],
          ]),
        ],
      ]);
    const res = await plugin.validateResourceConfig({
      type_name: counter.typeName,
      config: {
        msgpack: encodeMsgpack(
          config(counter, { lower: TfNumber.of(1), upper: TfNumber.of(2), external_services: [slot(true), slot(null)] }),
          counter.valueType,
        ),
      },
    });
    const [error] = errorsOf(res.diagnostics);
    expect(pathOf(error)).toEqual(['external_services']);
    expect(error?.detail).toMatch(/uniqueItems/);
  });

  it('answers a number with a 400-million-digit expansion promptly, with a short diagnostic at its attribute', async () => {
    const started = Date.now();
    const res = await plugin.validateResourceConfig({
      type_name: sequence.typeName,
      config: { msgpack: encodeMsgpack(config(sequence, { lower: TfNumber.fromDecimal('1e400000000'), upper: TfNumber.of(2) }), sequence.valueType) },
    });
    expect(Date.now() - started).toBeLessThan(5000);
    const [error] = errorsOf(res.diagnostics);
    expect(error?.summary).toBe('Invalid value');
    expect(pathOf(error)).toEqual(['lower']);
    expect(error!.detail.length).toBeLessThan(1000);
  });

  it('names the attribute whose msgpack has the wrong type', async () => {
    const raw = Object.fromEntries(Object.keys((sequence.valueType as { attributes: object }).attributes).map((k) => [k, null]));
    const res = await plugin.validateResourceConfig({
      type_name: sequence.typeName,
      config: { msgpack: encode({ ...raw, name: 'x', lower: 'not a number', upper: 2 }) },
    });
    const [error] = errorsOf(res.diagnostics);
    expect(pathOf(error)).toEqual(['lower']);
  });

  it('refuses a map key "__proto__" and garbage bytes with diagnostics, and keeps serving', async () => {
    const proto = Buffer.from([0x81, 0xa9, ...Buffer.from('__proto__'), 0x01]);
    for (const bytes of [proto, Buffer.from([0xc1]), Buffer.from([0xdd, 0xff, 0xff, 0xff, 0xff])]) {
      const res = await plugin.validateResourceConfig({ type_name: sequence.typeName, config: { msgpack: bytes } });
      expect(errorsOf(res.diagnostics).length).toBeGreaterThan(0);
    }
    expect(plugin.alive()).toBe(true);
    expect((await plugin.getProviderSchema()).resource_schemas[sequence.typeName]).toBeDefined();
  });

  it('refuses stored state that is not a JSON object, and hands a current one back byte for byte', async () => {
    for (const version of [0, 1, RESOURCE_STATE_VERSION]) {
      for (const bad of ['{"name":', '[1,2,3]', '']) {
        const res = await plugin.upgradeResourceState({ type_name: sequence.typeName, version, raw_state: { json: Buffer.from(bad) } });
        expect(errorsOf(res.diagnostics).map((d) => d.summary)).toEqual(['Unreadable resource state']);
      }
    }
    const good = Buffer.from('{"name":"x","lower":1e400,"upper":2}');
    const res = await plugin.upgradeResourceState({ type_name: sequence.typeName, version: RESOURCE_STATE_VERSION, raw_state: { json: good } });
    expect(res.diagnostics).toEqual([]);
    expect(Buffer.from(res.upgraded_state!.json).equals(good)).toBe(true);
  });

  it('refuses a version 0 state it cannot rewrite exactly, naming why, and keeps serving', async () => {
    const cases: [string, RegExp][] = [
      ['{"name":"x","lower":1e400,"conditions":[]}', /not strict JSON/],
      ['{"name":"x","name":"y","conditions":[]}', /not strict JSON/],
      ['{"name":"x","conditions":{"type":"Ready"}}', /`conditions` is not a list/],
      [
        '{"name":"x","conditions":[{"type":"Ready","status":"Maybe","reason":"Available","last_transition_time":"2026-12-01T00:00:00Z"}]}',
        /`conditions\[0\]` is not a condition/,
      ],
    ];
    for (const [json, why] of cases) {
      const res = await plugin.upgradeResourceState({ type_name: sequence.typeName, version: 0, raw_state: { json: Buffer.from(json) } });
      const errors = errorsOf(res.diagnostics);
      expect(errors.map((d) => d.summary)).toEqual(['Unreadable resource state']);
      expect(errors[0]!.detail).toMatch(why);
      expect(errors[0]!.detail).toMatch(/schema version 0/);
    }
    const one = await plugin.upgradeResourceState({ type_name: sequence.typeName, version: 0, raw_state: { json: Buffer.from('{"conditions":7}') } });
    expect(errorsOf(one.diagnostics)[0]!.detail).toBe(
      `The stored state of this ${sequence.typeName} (schema version 0) cannot be upgraded to version ${RESOURCE_STATE_VERSION}: its \`conditions\` is not a list. ` +
        'Restore the state file from a backup, or remove the resource from state (`state rm`) and import it again.',
    );
    const newer = await plugin.upgradeResourceState({
      type_name: sequence.typeName,
      version: RESOURCE_STATE_VERSION + 1,
      raw_state: { json: Buffer.from('{}') },
    });
    expect(errorsOf(newer.diagnostics).map((d) => d.summary)).toEqual(['State written by a newer provider']);
    expect(plugin.alive()).toBe(true);
  });

  it('refuses a moved source it cannot read, in both directions, naming the version and what to do', async () => {
    const move = (source: string, target: string, version: number, json: string) =>
      plugin.moveResourceState({
        source_provider_address: 'registry.takoform.dev/takoform/takoform',
        source_type_name: source,
        source_schema_version: version,
        source_state: { json: Buffer.from(json) },
        target_type_name: target,
      });
    for (const [source, target] of [
      [GENERIC_TYPE_NAME, sequence.typeName],
      [sequence.typeName, GENERIC_TYPE_NAME],
    ]) {
      const bad = errorsOf((await move(source, target, 0, '{"conditions":[{"type":"Ready"}]}')).diagnostics);
      expect(bad.map((d) => d.summary)).toEqual(['Cannot move']);
      expect(bad[0]!.detail).toMatch(new RegExp(`^The ${source} state \\(schema version 0\\) cannot be read: its \`conditions\\[0\\]\` is not a condition`));
      expect(bad[0]!.detail).toMatch(/state rm/);
      const newer = errorsOf((await move(source, target, RESOURCE_STATE_VERSION + 1, '{}')).diagnostics);
      expect(newer.map((d) => d.summary)).toEqual(['State written by a newer provider']);
    }
    // A source type takoform does not move from is named as such, whatever its version or bytes.
    const other = errorsOf((await move('takoform_artifact', sequence.typeName, 7, 'not json')).diagnostics);
    expect(other.map((d) => d.summary)).toEqual(['Unsupported move']);
    expect(plugin.alive()).toBe(true);
  });
});
