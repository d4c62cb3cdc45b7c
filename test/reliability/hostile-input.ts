// Reliability scenario "hostile input": what the plugin does with input that is wrong on
// purpose, seen from outside exactly as core sees it (the bundled plugin process over gRPC
// with mTLS, real tofu) against the real reference Host behind the fault-injecting proxy.
//
//   negative-fixtures    every negative desired-state fixture of the shared data is refused
//                        by the plugin (typed and generic resource types, and through tofu)
//                        with an attribute path, and nothing reaches the Host.
//   fuzz:config          configurations generated from each Form's desired schema (valid-ish,
//                        out of range, wrong types, huge strings, nulls, unknowns) through
//                        ValidateResourceConfig, PlanResourceChange and sometimes
//                        ApplyResourceChange: answers within a deadline, value diagnostics
//                        carry attribute paths that fit the schema, plans keep configured
//                        values, and nothing the plugin lets through is refused by the
//                        Host's own schema check (and nothing the Host's schema accepts is
//                        refused by the plugin's).
//   fuzz:msgpack         arbitrary bytes, structurally wrong msgpack and JSON-encoded values
//                        in every RPC that takes a DynamicValue or raw JSON: never a gRPC
//                        error status, never a crash, a diagnostic whenever the input is bad,
//                        and no mutating Host request.
//   malformed-responses  Host answers outside the contract (truncated, duplicate members,
//                        wrong status for the envelope code, unknown members, wrong ETag,
//                        non-JSON) seen through real tofu: a "Host protocol violation", no
//                        crash, state unchanged or matching the Host, and the next run
//                        converges.
//
// Invariants broken become sentences in `violations`; only set-up failures throw.
import { encode, ExtData } from '@msgpack/msgpack';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import * as fc from 'fast-check';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { materializeDefaults } from '../../src/common/json-schema-defaults.js';
import type { JsonObject, JsonValue } from '../../src/host-client/wire-types.js';
import { formatCatalog, type CatalogForm } from '../../src/plugin/catalog/catalog-file.js';
import { DATA_SOURCES } from '../../src/plugin/data/data-sources.js';
import type { Diagnostic__Output } from '../../src/plugin/generated/types/tfplugin6/Diagnostic.js';
import type { DynamicValue } from '../../src/plugin/generated/types/tfplugin6/DynamicValue.js';
import type { _tfplugin6_AttributePath_Step__Output as PathStep } from '../../src/plugin/generated/types/tfplugin6/AttributePath.js';
import { decodeObject } from '../../src/plugin/grpc/dynamic-value.js';
import { PROVIDER_SCHEMA } from '../../src/plugin/provider/provider-config.js';
import { FormResourceType } from '../../src/plugin/resource/form-resource-type.js';
import { GENERIC_TYPE, GENERIC_TYPE_NAME } from '../../src/plugin/resource/generic-resource.js';
import { IDENTITY_TYPE } from '../../src/plugin/resource/identity.js';
import { toSpec, type FieldMapping, type ValueMapping } from '../../src/plugin/schema/form-mapping.js';
import { topLevelAttributeName } from '../../src/plugin/schema/names.js';
import { impliedType, type TfAttribute } from '../../src/plugin/schema/tf-schema.js';
import { decodeMsgpack, encodeMsgpack } from '../../src/plugin/values/msgpack.js';
import { TfNumber } from '../../src/plugin/values/tf-number.js';
import { T, type TfType } from '../../src/plugin/values/tf-type.js';
import { isObjectValue, isWhollyKnown, objectValue, TfDynamic, Unknown, UNKNOWN, type TfObject, type TfValue } from '../../src/plugin/values/tf-value.js';
import { FaultProxy, type Fault } from '../support/fault-proxy.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { HostApi, RANGE_SEQUENCE_REF } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, SHARED_DATA } from '../support/paths.js';
import { resourceNameProblem } from '../../src/common/grammar.js';
import { isServiceError, startPluginClient, type PluginClient } from '../support/plugin-client.js';
import { createWorkspace, type TofuRun, type TofuWorkspace } from '../support/tofu.js';
import { count, emptyReport, type ReliabilityReport, type ScenarioOptions } from './report.js';

export const EDGE_FORMS = path.join(SHARED_DATA, 'terraform-provider-takoform/forms/candidates/edge/v1beta1');
export const PORTABLE_FIXTURES = path.join(SHARED_DATA, 'terraform-provider-takoform/conformance/portable-host-v1beta1');

type Diag = Diagnostic__Output;
type Schema = { readonly [key: string]: unknown };

// ---------------------------------------------------------------------------------------
// The shared data: Form packages, their fixtures, and a catalog made from them
// ---------------------------------------------------------------------------------------

export interface FormData {
  /** Resource type name in our catalog. */
  readonly typeName: string;
  readonly dir: string;
  /** True when the reference Host can install it (Host API v1 packages). */
  readonly onHost: boolean;
  readonly catalogForm: CatalogForm;
  readonly positive: JsonObject | undefined;
}

export interface NegativeFixture {
  readonly label: string;
  readonly form: FormData;
  readonly spec: JsonObject;
  /** Top-level properties where it differs from the Form's positive fixture. */
  readonly offending: readonly string[];
}

const readJson = (file: string): JsonObject => JSON.parse(readFileSync(file, 'utf8')) as JsonObject;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function formFromDir(dir: string, typeName: string, onHost: boolean): FormData {
  const def = readJson(path.join(dir, 'definition.json'));
  const index = readJson(path.join(dir, 'package-index.json'));
  const positivePath =
    Array.isArray(def.conformanceFixtures) && isRecord(def.conformanceFixtures[0]) ? (def.conformanceFixtures[0].desiredPath as string) : undefined;
  const catalogForm: CatalogForm = {
    typeName,
    formRef: index.formRef as unknown as CatalogForm['formRef'],
    title: typeof def.title === 'string' ? def.title : typeName,
    operations: Array.isArray(def.lifecycleCapabilities) ? (def.lifecycleCapabilities as string[]).slice().sort() : [],
    immutableFields: Array.isArray(def.immutableFields) ? (def.immutableFields as string[]) : [],
    ...(typeof def.role === 'string' ? { role: def.role } : {}),
    ...(isRecord(def.outputSchema) ? { outputSchema: def.outputSchema as JsonObject } : {}),
    packageVerified: true,
    desiredSchema: def.desiredSchema as JsonObject,
  };
  return { typeName, dir, onHost, catalogForm, positive: positivePath ? readJson(path.join(dir, positivePath)) : undefined };
}

const packageDirs = (root: string) =>
  readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(root, d.name, 'definition.json')))
    .map((d) => d.name)
    .sort();

/** Every Form Definition with a desired schema in the shared data: 20 v1 packages and 10 Edge v1beta1 ones. */
export function loadForms(): FormData[] {
  const v1 = packageDirs(GENERIC_FORMS).map((name) => formFromDir(path.join(GENERIC_FORMS, name), `takoform_${name.replace(/-/g, '_')}`, true));
  const edge = packageDirs(EDGE_FORMS).map((name) => formFromDir(path.join(EDGE_FORMS, name), `takoform_edge_${name.replace(/-/g, '_')}`, false));
  return [...v1, ...edge];
}

/** The catalog file the plugin reads (`.takoform.lock.json`): every Form, from its verified package files. */
export function catalogText(forms: readonly FormData[]): string {
  return formatCatalog({ formatVersion: 1, forms: forms.map((f) => f.catalogForm) });
}

function differingProperties(negative: JsonObject, positive: JsonObject | undefined): string[] {
  const base = positive ?? {};
  const keys = new Set([...Object.keys(negative), ...Object.keys(base)]);
  return [...keys].filter((k) => JSON.stringify(negative[k]) !== JSON.stringify(base[k])).sort();
}

/** The negative desired-state fixtures: those the Definitions list, and the portable-host ones. */
export function loadNegativeFixtures(forms: readonly FormData[]): NegativeFixture[] {
  const out: NegativeFixture[] = [];
  for (const form of forms) {
    const def = readJson(path.join(form.dir, 'definition.json'));
    for (const entry of Array.isArray(def.negativeConformanceFixtures) ? def.negativeConformanceFixtures : []) {
      if (!isRecord(entry) || entry.stage !== 'desired' || typeof entry.inputPath !== 'string') continue;
      const spec = readJson(path.join(form.dir, entry.inputPath));
      out.push({ label: `${path.basename(form.dir)}/${entry.inputPath}`, form, spec, offending: differingProperties(spec, form.positive) });
    }
  }
  const contract = readJson(path.join(PORTABLE_FIXTURES, 'contract.json'));
  const runner = isRecord(contract.runnerInput) ? contract.runnerInput : {};
  for (const entry of Array.isArray(runner.negativeFixtures) ? runner.negativeFixtures : []) {
    if (!isRecord(entry) || typeof entry.path !== 'string') continue;
    const form = forms.find((f) => !f.onHost && f.catalogForm.formRef.kind === entry.kind);
    if (!form) throw new Error(`portable-host negative fixture ${entry.path} names kind ${String(entry.kind)}, which no Edge package has`);
    const spec = readJson(path.join(PORTABLE_FIXTURES, entry.path));
    out.push({ label: `portable-host-v1beta1/${entry.path}`, form, spec, offending: differingProperties(spec, form.positive) });
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Values on the wire
// ---------------------------------------------------------------------------------------

/** An object whose keys are all data, "__proto__" included. */
function rawObject(entries: Iterable<readonly [string, unknown]>): Record<string, unknown> {
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

const pack = (raw: unknown): Buffer => Buffer.from(encode(raw, { useBigInt64: true, ignoreUndefined: false }));
const mp = (bytes: Uint8Array): DynamicValue => ({ msgpack: Buffer.from(bytes) });
const NIL: DynamicValue = mp(new Uint8Array([0xc0]));
const UNKNOWN_RAW = new ExtData(0, new Uint8Array([0]));
/** A refined unknown ("not null"), with the integer-keyed refinement map core writes. */
const REFINED_UNKNOWN_RAW = new ExtData(12, new Uint8Array([0x81, 0x01, 0xc2]));
const utf8 = (s: string) => new TextEncoder().encode(s);

/** The cty wire form of a JSON value in a `dynamic` slot: [type JSON, value]. */
function dynamicRaw(v: JsonValue): unknown {
  const typed = (x: JsonValue): { type: unknown; raw: unknown } => {
    if (x === null) return { type: 'dynamic', raw: null };
    if (typeof x === 'string') return { type: 'string', raw: x };
    if (typeof x === 'boolean') return { type: 'bool', raw: x };
    if (typeof x === 'number') return { type: 'number', raw: x };
    if (Array.isArray(x)) {
      const items = x.map(typed);
      return { type: ['tuple', items.map((i) => i.type)], raw: items.map((i) => i.raw) };
    }
    const entries = Object.entries(x).map(([k, item]) => [k, typed(item)] as const);
    return { type: ['object', rawObject(entries.map(([k, t]) => [k, t.type]))], raw: rawObject(entries.map(([k, t]) => [k, t.raw])) };
  };
  const t = typed(v);
  return [utf8(JSON.stringify(t.type)), t.raw];
}

// ---------------------------------------------------------------------------------------
// Diagnostics: what "carries an attribute path" and "fits the schema" mean
// ---------------------------------------------------------------------------------------

const VALUE_SUMMARIES = new Set(['Value not allowed by the Form', 'Invalid value', 'Invalid duration', 'Invalid spec', 'Missing space']);

const errors = (diags: readonly Diag[] | undefined): Diag[] => (diags ?? []).filter((d) => d.severity === 'ERROR');

function describePath(steps: readonly PathStep[] | undefined): string {
  if (!steps || steps.length === 0) return '(none)';
  return steps
    .map((s) =>
      s.attribute_name !== undefined
        ? `.${s.attribute_name}`
        : s.element_key_int !== undefined
          ? `[${s.element_key_int}]`
          : `[${JSON.stringify(s.element_key_string)}]`,
    )
    .join('');
}

const short = (text: string, max = 300): string => (text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text);
const oneLine = (d: Diag): string => `"${d.summary}" at ${describePath(d.attribute?.steps)}: ${short(d.detail.replace(/\s+/g, ' '), 240)}`;

/**
 * True when the diagnostic is about one value of the configuration, so it must say which (an
 * attribute path): our value checks, a Host refusal pointing into the spec or at the name or
 * space, a value that does not fit the schema. (A Host pointer at /apiVersion is about the Form.)
 */
function aboutAValue(d: Diag): boolean {
  return (
    VALUE_SUMMARIES.has(d.summary) || /\nField: \/(spec|metadata\/(name|space))(\/|$)/m.test(d.detail) || /value does not match the schema: \[/.test(d.detail)
  );
}

/** Whether the steps walk a path that exists in `type` (attribute names of objects, keys of maps, indices of lists). */
function pathFits(steps: readonly PathStep[], type: TfType): boolean {
  let t: TfType = type;
  for (const s of steps) {
    if (t.kind === 'dynamic') return true;
    if (s.attribute_name !== undefined) {
      if (t.kind !== 'object' || !(s.attribute_name in t.attributes)) return false;
      t = t.attributes[s.attribute_name]!;
    } else if (s.element_key_int !== undefined) {
      if ((t.kind !== 'list' && t.kind !== 'tuple') || !/^\d+$/.test(s.element_key_int)) return false;
      t = t.kind === 'list' ? t.element : (t.elements[Number(s.element_key_int)] ?? T.dynamic);
    } else if (s.element_key_string !== undefined) {
      if (t.kind !== 'map') return false;
      t = t.element;
    } else return false;
  }
  return true;
}

/** Problems with the diagnostics of one answer: value diagnostics without a path, paths that do not fit. */
function diagnosticProblems(diags: readonly Diag[] | undefined, type: TfType): string[] {
  const out: string[] = [];
  for (const d of diags ?? []) {
    const steps = d.attribute?.steps ?? [];
    if (d.severity === 'ERROR' && aboutAValue(d) && steps.length === 0) out.push(`an error diagnostic about a value has no attribute path: ${oneLine(d)}`);
    if (steps.length > 0 && !pathFits(steps, type))
      out.push(`a diagnostic's attribute path ${describePath(steps)} does not exist in the schema: ${oneLine(d)}`);
    if (d.severity !== 'ERROR' && d.severity !== 'WARNING') out.push(`a diagnostic has severity ${d.severity}: ${oneLine(d)}`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// The Host's own schema check, used as the oracle for "the Host would refuse it"
// ---------------------------------------------------------------------------------------

const hostValidators = new Map<string, ValidateFunction>();

/** What the reference Host does to a desired spec before storing it: defaults, then JSON Schema 2020-12. */
function hostSchemaProblems(form: CatalogForm, spec: JsonObject): string[] {
  let validate = hostValidators.get(form.typeName);
  if (!validate) {
    validate = new Ajv2020({ strict: false, allErrors: true }).compile(form.desiredSchema);
    hostValidators.set(form.typeName, validate);
  }
  if (validate(materializeDefaults(form.desiredSchema, spec))) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
}

// ---------------------------------------------------------------------------------------
// Generators of configurations from a Form's schema
// ---------------------------------------------------------------------------------------

/** A generated wire value; `defect` marks a value whose msgpack does not fit its type. */
interface Gen {
  readonly raw: unknown;
  readonly defect: boolean;
}
const ok = (raw: unknown): Gen => ({ raw, defect: false });
const bad = (raw: unknown): Gen => ({ raw, defect: true });

/** Decimal texts core may send for numbers that are not doubles, and a few that no one should. */
const DECIMALS = [
  '1e400',
  '-1e400',
  '1e-400',
  '12345678901234567891',
  '-9223372036854775809',
  '0.1',
  '2.5',
  '-0',
  '9007199254740993',
  '1e400000000',
  '-1e-400000000',
];
const HOSTILE_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '', ' ', 'a.b', 'a/b', '~0', 'ключ', '\u0000', 'x'.repeat(300)];

const subschema = (schema: Schema, key: string): Schema => (isRecord(schema[key]) ? (schema[key] as Schema) : {});
const propertySchema = (schema: Schema, property: string): Schema => subschema(subschema(schema, 'properties'), property);

/**
 * Every generator has two moods: `hostile` mixes in everything a broken or malicious
 * configuration could hold; otherwise it aims at values the schema allows, so that plenty of
 * configurations get through the plugin and reach the Host's prepare and apply.
 */
function arbString(schema: Schema, hostile: boolean): fc.Arbitrary<Gen> {
  const fitting: { weight: number; arbitrary: fc.Arbitrary<string> }[] = [];
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((v): v is string => typeof v === 'string');
    if (values.length) fitting.push({ weight: 6, arbitrary: fc.constantFrom(...values) });
  }
  if (typeof schema.const === 'string') fitting.push({ weight: 4, arbitrary: fc.constant(schema.const) });
  if (typeof schema.pattern === 'string') {
    try {
      fitting.push({ weight: 6, arbitrary: fc.stringMatching(new RegExp(schema.pattern, 'u')) });
    } catch {
      // fast-check cannot generate from every pattern; the other choices still cover it.
    }
  }
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 16;
  if (fitting.length === 0) fitting.push({ weight: 4, arbitrary: fc.string({ minLength, maxLength: Math.max(minLength, Math.min(maxLength, 16)) }) });
  if (!hostile) return fc.oneof(...fitting).map(ok);
  return fc
    .oneof(
      ...fitting,
      { weight: 2, arbitrary: fc.string({ maxLength: 16 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
      { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 200_000 }).map((n) => 'x'.repeat(n)) },
      { weight: 1, arbitrary: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}[a-z0-9]$/) },
      { weight: 1, arbitrary: fc.constant('a'.repeat(maxLength + 1)) },
    )
    .map(ok);
}

function arbNumber(schema: Schema, hostile: boolean): fc.Arbitrary<Gen> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -100;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 100;
  if (!hostile) return fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) }).map(ok);
  return fc
    .oneof(
      { weight: 8, arbitrary: fc.integer({ min: Math.max(min - 2, -(2 ** 31)), max: Math.min(max + 2, 2 ** 31 - 1) }) },
      { weight: 1, arbitrary: fc.maxSafeInteger() },
      { weight: 1, arbitrary: fc.double({ noNaN: true }) },
      { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }) },
      { weight: 1, arbitrary: fc.constantFrom(...DECIMALS) },
    )
    .map(ok);
}

/** A value of the wrong msgpack kind for the mapping: core never sends one, the plugin must say which attribute. */
function arbWrongType(m: ValueMapping): fc.Arbitrary<Gen> {
  switch (m.kind) {
    case 'string':
    case 'reference':
      return fc.constantFrom<unknown>(42, true, [1], rawObject([['a', 1]])).map(bad);
    case 'number':
      return fc.constantFrom<unknown>(true, 'not-a-number', '1e', [1], rawObject([])).map(bad);
    case 'bool':
      return fc.constantFrom<unknown>(1, 'true', [], rawObject([])).map(bad);
    case 'list':
      return fc.constantFrom<unknown>(rawObject([]), 'list', 7).map(bad);
    case 'map':
    case 'object':
      return fc.constantFrom<unknown>([], 'object', 7, [rawObject([])]).map(bad);
    case 'dynamic':
      return fc.constantFrom<unknown>('x', [1], [utf8('not json'), 1], [utf8('"number"'), 'abc'], [utf8('["list","string"]'), 'x']).map(bad);
  }
}

const arbUnknown: fc.Arbitrary<Gen> = fc.oneof(
  fc.constant(ok(UNKNOWN_RAW)),
  fc.constant(ok(REFINED_UNKNOWN_RAW)),
  // Every extension type means "unknown" in cty's msgpack.
  fc.tuple(fc.integer({ min: -128, max: 127 }), fc.uint8Array({ maxLength: 8 })).map(([t, d]) => ok(new ExtData(t, d))),
);

/** The same object element with every Host-filled member left out: equal to the first once the Host fills defaults. */
function withHostFilledCleared(raw: unknown, m: ValueMapping): unknown {
  if (m.kind !== 'object' || !isRecord(raw)) return raw;
  return rawObject(m.fields.map((f) => [f.attribute, f.hostFilled ? null : withHostFilledCleared(raw[f.attribute], f.mapping)] as const));
}

function arbValue(m: ValueMapping, schema: Schema, depth: number, hostile: boolean): fc.Arbitrary<Gen> {
  switch (m.kind) {
    case 'string':
      return arbString(schema, hostile);
    case 'reference':
      return hostile
        ? fc
            .oneof(
              { weight: 4, arbitrary: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/) },
              { weight: 1, arbitrary: fc.constantFrom('Not A Resource Name', '', 'x'.repeat(300)) },
            )
            .map(ok)
        : fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/).map(ok);
    case 'number':
      return arbNumber(schema, hostile);
    case 'bool':
      return fc.boolean().map(ok);
    case 'list': {
      const element = arbElement(m.element, subschema(schema, 'items'), depth + 1, hostile);
      const minLength = hostile || typeof schema.minItems !== 'number' ? 0 : schema.minItems;
      const maxLength = Math.max(minLength, depth > 1 ? 2 : hostile || typeof schema.maxItems !== 'number' ? 5 : Math.min(schema.maxItems, 5));
      return fc.tuple(fc.array(element, { minLength, maxLength }), fc.integer({ min: 0, max: 3 })).map(([items, twist]) => {
        const raws = items.map((i) => i.raw);
        // uniqueItems on the Host is judged after defaults are filled in: add a twin that
        // differs from the first element only by members the Host fills.
        if (twist === 0 && raws.length > 0) raws.push(withHostFilledCleared(raws[0], m.element));
        return { raw: raws, defect: items.some((i) => i.defect) };
      });
    }
    case 'map': {
      const element = arbElement(m.element, subschema(schema, 'additionalProperties'), depth + 1, hostile);
      const key = hostile
        ? fc.oneof({ weight: 4, arbitrary: fc.string({ maxLength: 8 }) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_KEYS) })
        : fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
      return fc
        .uniqueArray(fc.tuple(key, element), { maxLength: 4, selector: ([k]) => k })
        .map((entries) => ({ raw: rawObject(entries.map(([k, g]) => [k, g.raw])), defect: entries.some(([, g]) => g.defect) }));
    }
    case 'object':
      return arbObject(m.fields, schema, depth, hostile);
    case 'dynamic':
      return fc.jsonValue({ maxDepth: 3 }).map((v) => ok(dynamicRaw(v as JsonValue)));
  }
}

function arbElement(m: ValueMapping, schema: Schema, depth: number, hostile: boolean): fc.Arbitrary<Gen> {
  if (!hostile) return arbValue(m, schema, depth, false);
  return fc.oneof(
    { weight: 12, arbitrary: arbValue(m, schema, depth, true) },
    { weight: 1, arbitrary: fc.constant(ok(null)) },
    { weight: 1, arbitrary: arbUnknown },
    { weight: 1, arbitrary: arbWrongType(m) },
  );
}

function arbField(f: FieldMapping, schema: Schema, depth: number, hostile: boolean): fc.Arbitrary<Gen> {
  if (!hostile) {
    const value = arbValue(f.mapping, schema, depth, false);
    return f.required ? value : fc.oneof({ weight: 10, arbitrary: value }, { weight: 3, arbitrary: fc.constant(ok(null)) });
  }
  return fc.oneof(
    { weight: 10, arbitrary: arbValue(f.mapping, schema, depth, true) },
    { weight: f.required ? 1 : 4, arbitrary: fc.constant(ok(null)) },
    { weight: 1, arbitrary: arbUnknown },
    { weight: 1, arbitrary: arbWrongType(f.mapping) },
  );
}

/** A nested object: every attribute present (objects in cty always carry all of them), sometimes one too many or too few. */
function arbObject(fields: readonly FieldMapping[], schema: Schema, depth: number, hostile: boolean): fc.Arbitrary<Gen> {
  return fc
    .tuple(fc.tuple(...fields.map((f) => arbField(f, propertySchema(schema, f.property), depth + 1, hostile))), fc.integer({ min: 0, max: hostile ? 19 : 2 }))
    .map(([gens, n]) => {
      const shape = hostile ? n : 2;
      const entries: [string, unknown][] = fields.map((f, i) => [f.attribute, gens[i]!.raw]);
      const defect = gens.some((g) => g.defect) || shape === 0 || (shape === 1 && entries.length > 0);
      if (shape === 0) entries.push(['fuzz_unexpected', true]);
      if (shape === 1 && entries.length > 0) entries.pop();
      return { raw: rawObject(entries), defect };
    });
}

/** Which top-level attribute holds the name: a fresh valid one chosen at run time, or a hostile one. */
type NameChoice = { readonly fresh: true } | { readonly fresh: false; readonly gen: Gen };

interface ConfigCase {
  readonly form: number;
  /** Hostile values everywhere, or values aimed at what the schema allows. */
  readonly hostile: boolean;
  readonly name: NameChoice;
  readonly space: Gen;
  readonly timeouts: Gen;
  readonly fields: readonly Gen[];
  /** 0: as generated; 1: one attribute too many; 2: one too few. */
  readonly shape: number;
  /** Whether to apply (and then delete) a configuration the plugin accepts. */
  readonly apply: boolean;
  /** Whether to send the same spec through takoform_resource too. */
  readonly generic: boolean;
}

const arbTimeouts: fc.Arbitrary<Gen> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(ok(null)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(...[0, 1, 2].map(() => fc.constantFrom<string | null>('5m', '1h30m', '90s', null, 'soon', '', '-1s', '99999999999999h', '1.5.5s')))
      .map(([create, update, del]) =>
        ok(
          rawObject([
            ['create', create],
            ['update', update],
            ['delete', del],
          ]),
        ),
      ),
  },
  { weight: 1, arbitrary: fc.constant(ok(UNKNOWN_RAW)) },
  { weight: 1, arbitrary: fc.constant(bad('5m')) },
);

function arbConfigCase(forms: readonly FormResourceType[]): fc.Arbitrary<ConfigCase> {
  return fc.tuple(fc.integer({ min: 0, max: forms.length - 1 }), fc.boolean()).chain(([form, hostile]) => {
    const rt = forms[form]!;
    const schema = rt.form.desiredSchema as Schema;
    const calm = <T>(a: fc.Arbitrary<T>, fallback: T): fc.Arbitrary<T> => (hostile ? a : fc.constant(fallback));
    return fc.record({
      form: fc.constant(form),
      hostile: fc.constant(hostile),
      name: calm(
        fc.oneof(
          { weight: 10, arbitrary: fc.constant<NameChoice>({ fresh: true }) },
          {
            weight: 1,
            arbitrary: fc.constantFrom('', 'Not A Name', 'x'.repeat(300), 'ünïcode', '-lead', 'a/b').map((n): NameChoice => ({ fresh: false, gen: ok(n) })),
          },
          { weight: 1, arbitrary: fc.constant<NameChoice>({ fresh: false, gen: ok(UNKNOWN_RAW) }) },
          { weight: 1, arbitrary: fc.constant<NameChoice>({ fresh: false, gen: bad(17) }) },
        ),
        { fresh: true },
      ),
      space: calm(
        fc.oneof(
          { weight: 10, arbitrary: fc.constant(ok(null)) },
          { weight: 1, arbitrary: fc.constantFrom('', 'UPPER', '../etc', 'a'.repeat(300)).map(ok) },
          { weight: 1, arbitrary: fc.constant(ok(UNKNOWN_RAW)) },
        ),
        ok(null),
      ),
      timeouts: calm(arbTimeouts, ok(null)),
      fields: fc.tuple(...rt.fields.map((f) => arbField(f, propertySchema(schema, f.property), 0, hostile))),
      shape: calm(fc.oneof({ weight: 30, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(1, 2) }), 0),
      apply: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
      generic: fc.integer({ min: 0, max: 2 }).map((n) => n === 0),
    });
  });
}

function configRaw(rt: FormResourceType, c: ConfigCase, freshName: string): { raw: Record<string, unknown>; defect: boolean } {
  const type = rt.valueType as { attributes: Record<string, TfType> };
  const values = new Map<string, unknown>(Object.keys(type.attributes).map((k) => [k, null]));
  let defect = false;
  const put = (k: string, g: Gen) => {
    values.set(k, g.raw);
    defect ||= g.defect;
  };
  put('name', c.name.fresh ? ok(freshName) : c.name.gen);
  put('space', c.space);
  put('timeouts', c.timeouts);
  rt.fields.forEach((f, i) => put(f.attribute, c.fields[i]!));
  if (c.shape === 1) {
    values.set('fuzz_unexpected', 1);
    defect = true;
  }
  if (c.shape === 2) {
    values.delete('ready');
    defect = true;
  }
  return { raw: rawObject(values), defect };
}

/** The proposed new state core sends for a create: the configuration, with what it does not set and the provider computes unknown. */
function proposedForCreate(rt: FormResourceType, config: TfObject): TfObject {
  const computedOnly = new Set(rt.schema.block.attributes.filter((a) => a.computed && !a.optional && !a.required).map((a) => a.name));
  const optionalComputed = new Set(rt.schema.block.attributes.filter((a) => a.computed && a.optional).map((a) => a.name));
  return objectValue(
    Object.entries(config).map(([k, v]): [string, TfValue] => [k, computedOnly.has(k) || (optionalComputed.has(k) && v === null) ? UNKNOWN : v]),
  );
}

/** Exact equality of decoded values (numbers by decimal value, dynamic values with their type). */
function sameTf(a: TfValue, b: TfValue): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (a instanceof Unknown || b instanceof Unknown) return a instanceof Unknown && b instanceof Unknown;
  if (a instanceof TfNumber || b instanceof TfNumber) return a instanceof TfNumber && b instanceof TfNumber && a.equals(b);
  if (a instanceof TfDynamic || b instanceof TfDynamic)
    return a instanceof TfDynamic && b instanceof TfDynamic && JSON.stringify(a.type) === JSON.stringify(b.type) && sameTf(a.value, b.value);
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameTf(v as TfValue, b[i] as TfValue));
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => k in b && sameTf((a as TfObject)[k]!, (b as TfObject)[k]!));
}

/**
 * Core's rule for a planned value: equal to the configuration wherever the configuration
 * sets it; where it does not, only computed attributes may hold something. Returns where it breaks.
 */
function planBreaksConfig(attr: TfAttribute, config: TfValue, planned: TfValue, at: string): string | undefined {
  if (config === null)
    return attr.computed || planned === null
      ? undefined
      : `${at} is set in the plan (${short(String(JSON.stringify(planned)), 80)}) but not in the configuration`;
  if (config instanceof Unknown) return undefined;
  const nested = attr.nested;
  if (!nested) return sameTf(config, planned) ? undefined : `${at} is planned differently from the configuration`;
  const element = (c: TfValue, p: TfValue, where: string): string | undefined => {
    if (c === null || c instanceof Unknown) return c === null && p !== null ? `${where} is set in the plan but not in the configuration` : undefined;
    if (!isObjectValue(c) || !isObjectValue(p)) return `${where} is planned as another kind of value`;
    for (const a of nested.attributes) {
      const broken = planBreaksConfig(a, c[a.name] ?? null, p[a.name] ?? null, `${where}.${a.name}`);
      if (broken) return broken;
    }
    return undefined;
  };
  if (nested.nesting === 'SINGLE') return element(config, planned, at);
  if (nested.nesting === 'LIST' || nested.nesting === 'SET') {
    if (!Array.isArray(config) || !Array.isArray(planned) || config.length !== planned.length) return `${at} is planned with another number of elements`;
    for (let i = 0; i < config.length; i++) {
      const broken = element(config[i] as TfValue, planned[i] as TfValue, `${at}[${i}]`);
      if (broken) return broken;
    }
    return undefined;
  }
  if (!isObjectValue(config) || !isObjectValue(planned) || Object.keys(config).length !== Object.keys(planned).length)
    return `${at} is planned with other keys`;
  for (const k of Object.keys(config)) {
    const broken = element(config[k]!, planned[k] ?? null, `${at}[${JSON.stringify(k)}]`);
    if (broken) return broken;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------
// The scenario
// ---------------------------------------------------------------------------------------

interface Context {
  readonly report: ReliabilityReport;
  readonly options: ScenarioOptions & { fuzzRuns: number };
  readonly host: HostProcess;
  readonly proxy: FaultProxy;
  readonly forms: FormData[];
  readonly types: FormResourceType[];
  readonly catalogDir: string;
  readonly space: string;
  plugin: PluginClient;
  names: number;
}

const PROVIDER_TYPE = impliedType(PROVIDER_SCHEMA.block);
const violation = (ctx: Context, sentence: string) => {
  ctx.report.violations.push(sentence);
  ctx.options.log?.(`VIOLATION ${short(sentence, 400)}`);
};
const mutating = (p: FaultProxy, from: number) =>
  p.forwarded.slice(from).filter((r) => r.method !== 'GET' && r.method !== 'HEAD' && !/\/resources\/(prepare|validate)(\?|$)/.test(r.path));

async function startPlugin(ctx: Pick<Context, 'catalogDir' | 'proxy' | 'host' | 'space'> & { types?: readonly FormResourceType[] }): Promise<PluginClient> {
  const plugin = await startPluginClient({
    cwd: ctx.catalogDir,
    env: { TAKOFORM_ENDPOINT: ctx.proxy.url, TAKOFORM_TOKEN: ctx.host.token, TAKOFORM_SPACE: ctx.space },
    timeoutMs: 20_000,
  });
  const schema = await plugin.getProviderSchema();
  if (errors(schema.diagnostics).length) throw new Error(`the plugin refused the catalog: ${errors(schema.diagnostics).map(oneLine).join('; ')}`);
  // The values here are encoded with the schemas of src/; the bundle must serve the same ones.
  const names = (block: { attributes?: { name: string }[]; block_types?: { type_name: string }[] } | null | undefined) =>
    [...(block?.attributes ?? []).map((a) => a.name), ...(block?.block_types ?? []).map((b) => b.type_name)].sort().join(',');
  const expected: [string, string, string][] = [
    [
      'the provider block',
      names(schema.provider?.block),
      Object.keys((PROVIDER_TYPE as { attributes: object }).attributes)
        .sort()
        .join(','),
    ],
    ...(ctx.types ?? []).map((t): [string, string, string] => [
      t.typeName,
      names(schema.resource_schemas[t.typeName]?.block),
      Object.keys((t.valueType as { attributes: object }).attributes)
        .sort()
        .join(','),
    ]),
  ];
  for (const [what, served, wanted] of expected) {
    if (served !== wanted)
      throw new Error(
        `dist/provider serves other attributes for ${what} than src/ defines (${served} vs ${wanted}): rebuild with \`node scripts/gen-proto.mjs && node scripts/build.mjs\``,
      );
  }
  const configured = await plugin.configureProvider({
    terraform_version: '1.12.6',
    config: mp(
      encodeMsgpack(
        objectValue([
          ['endpoint', null],
          ['token', null],
          ['space', null],
        ]),
        PROVIDER_TYPE,
      ),
    ),
  });
  if (errors(configured.diagnostics).length) throw new Error(`ConfigureProvider failed: ${errors(configured.diagnostics).map(oneLine).join('; ')}`);
  return plugin;
}

/** After a phase: the plugin process must still run and answer; if it died, say so and start a new one. */
async function checkAlive(ctx: Context, phase: string): Promise<void> {
  if (ctx.plugin.alive()) {
    try {
      await ctx.plugin.getProviderSchema();
      return;
    } catch (e) {
      violation(ctx, `${phase}: the plugin process stopped answering GetProviderSchema (${(e as Error).message}); seed ${ctx.options.seed}.`);
    }
  } else {
    violation(
      ctx,
      `${phase}: the plugin process exited (code ${String(ctx.plugin.process.child.exitCode)}, signal ${String(ctx.plugin.process.child.signalCode)}); stderr tail: ${short(ctx.plugin.process.stderr().slice(-1500), 1500)}; seed ${ctx.options.seed}.`,
    );
  }
  ctx.plugin.kill();
  ctx.plugin = await startPlugin(ctx);
}

/** One RPC answer, or the reason there was none (a gRPC status or the deadline: both violations). */
async function answer<R>(call: () => Promise<R>): Promise<{ ok: true; value: R } | { ok: false; why: string }> {
  try {
    return { ok: true, value: await call() };
  } catch (e) {
    if (isServiceError(e)) return { ok: false, why: `gRPC status ${e.code} (${grpcStatusName(e.code)}): ${short(e.details, 200)}` };
    return { ok: false, why: (e as Error).message };
  }
}

function grpcStatusName(code: number): string {
  return (
    [
      'OK',
      'CANCELLED',
      'UNKNOWN',
      'INVALID_ARGUMENT',
      'DEADLINE_EXCEEDED',
      'NOT_FOUND',
      'ALREADY_EXISTS',
      'PERMISSION_DENIED',
      'RESOURCE_EXHAUSTED',
      'FAILED_PRECONDITION',
      'ABORTED',
      'OUT_OF_RANGE',
      'UNIMPLEMENTED',
      'INTERNAL',
      'UNAVAILABLE',
      'DATA_LOSS',
      'UNAUTHENTICATED',
    ][code] ?? String(code)
  );
}

/** A bound on one property's wall time (shrinking included): generous, growing with the run count. */
const timeLimit = (ctx: Context) => Math.max(150_000, ctx.options.fuzzRuns * 1_000);

/** Records a failed fast-check run as one violation with its counterexample and how to replay it. */
function recordCheck<T>(ctx: Context, property: string, details: fc.RunDetails<T>): void {
  count(ctx.report, `${property}:runs`, details.numRuns);
  if (!details.failed) {
    if (details.interrupted) ctx.report.notes.push(`${property}: stopped by the time limit after ${details.numRuns} runs`);
    return;
  }
  const why = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  violation(
    ctx,
    `${property}: ${short(why, 1200)} — counterexample ${short(fc.stringify(details.counterexample), 600)}; replay with seed ${details.seed}, path "${details.counterexamplePath ?? ''}" (${details.numShrinks} shrinks).`,
  );
}

// ---------- negative fixtures through the plugin ----------

function typedConfig(rt: FormResourceType, spec: JsonObject, name: string): { config: TfObject; unmapped: string[] } {
  const unmapped = Object.keys(spec).filter((p) => !rt.fields.some((f) => f.property === p));
  const attrs = new Map<string, TfValue>(Object.keys((rt.valueType as { attributes: object }).attributes).map((k) => [k, null]));
  attrs.set('name', name);
  for (const [k, v] of Object.entries(rt.desiredValues(spec))) attrs.set(k, v);
  return { config: objectValue(attrs), unmapped };
}

function genericConfig(form: CatalogForm, spec: JsonObject, name: string): TfObject {
  const ref = form.formRef;
  const values = new Map<string, unknown>(Object.keys((GENERIC_TYPE as { attributes: object }).attributes).map((k) => [k, null]));
  values.set('api_version', ref.apiVersion);
  values.set('kind', ref.kind);
  values.set('definition_version', ref.definitionVersion);
  values.set('schema_digest', ref.schemaDigest);
  values.set('name', name);
  // The spec as core encodes an HCL object in a dynamic attribute: [type JSON, value].
  values.set('spec', dynamicRaw(spec));
  return decodeMsgpack(pack(rawObject(values)), GENERIC_TYPE) as TfObject;
}

async function negativeFixtures(ctx: Context): Promise<void> {
  const fixtures = loadNegativeFixtures(ctx.forms);
  const before = ctx.proxy.seen.length;
  const typeOf = (f: FormData) => ctx.types.find((t) => t.typeName === f.typeName)!;
  for (const fx of fixtures) {
    count(ctx.report, 'negative-fixtures');
    const rt = typeOf(fx.form);
    const expectedTyped = fx.offending.map((p) => rt.fields.find((f) => f.property === p)?.attribute ?? topLevelAttributeName(p));
    // Typed resource type: what core sends when the fixture's properties are attributes.
    // An undeclared property cannot be one (core refuses it as "Unsupported argument";
    // the tofu phase covers that), so those fixtures go through takoform_resource only.
    const typed = typedConfig(rt, fx.spec, 'negative-fixture');
    if (typed.unmapped.length === 0) {
      count(ctx.report, 'negative-fixtures:typed');
      const r = await answer(() => ctx.plugin.validateResourceConfig({ type_name: rt.typeName, config: mp(encodeMsgpack(typed.config, rt.valueType)) }));
      if (!r.ok) violation(ctx, `negative fixture ${fx.label}: ValidateResourceConfig(${rt.typeName}) got no answer: ${r.why}.`);
      else {
        const errs = errors(r.value.diagnostics);
        for (const p of diagnosticProblems(r.value.diagnostics, rt.valueType)) violation(ctx, `negative fixture ${fx.label} (${rt.typeName}): ${p}.`);
        if (errs.length === 0)
          violation(
            ctx,
            `negative fixture ${fx.label}: ${rt.typeName} accepted it at ValidateResourceConfig; it must be refused before anything reaches the Host.`,
          );
        else if (!errs.some((d) => expectedTyped.includes(d.attribute?.steps[0]?.attribute_name ?? ''))) {
          violation(
            ctx,
            `negative fixture ${fx.label}: ${rt.typeName} refused it, but no error names ${expectedTyped.join(' or ')}: ${errs.map(oneLine).join('; ')}.`,
          );
        }
      }
    }
    // The generic type with the fixture as its spec, verbatim.
    count(ctx.report, 'negative-fixtures:generic');
    const g = await answer(() =>
      ctx.plugin.validateResourceConfig({
        type_name: GENERIC_TYPE_NAME,
        config: mp(encodeMsgpack(genericConfig(fx.form.catalogForm, fx.spec, 'negative-fixture'), GENERIC_TYPE)),
      }),
    );
    if (!g.ok) violation(ctx, `negative fixture ${fx.label}: ValidateResourceConfig(${GENERIC_TYPE_NAME}) got no answer: ${g.why}.`);
    else {
      const errs = errors(g.value.diagnostics);
      for (const p of diagnosticProblems(g.value.diagnostics, GENERIC_TYPE)) violation(ctx, `negative fixture ${fx.label} (${GENERIC_TYPE_NAME}): ${p}.`);
      // The path is `spec` itself (core cannot follow a path into an expression); the detail names the member, in HCL (`spec.member`).
      const named = errs.some((d) => d.attribute?.steps[0]?.attribute_name === 'spec' && fx.offending.some((p) => d.detail.includes(`spec.${p}`)));
      if (errs.length === 0)
        violation(
          ctx,
          `negative fixture ${fx.label}: ${GENERIC_TYPE_NAME} for ${fx.form.typeName}'s exact Form accepted it at ValidateResourceConfig although the catalog has that Form's schema.`,
        );
      else if (!named)
        violation(
          ctx,
          `negative fixture ${fx.label}: ${GENERIC_TYPE_NAME} refused it, but no error points at spec and names spec.${fx.offending.join(' or spec.')}: ${errs.map(oneLine).join('; ')}.`,
        );
    }
  }
  const reached = ctx.proxy.seen.slice(before);
  if (reached.length)
    violation(
      ctx,
      `negative fixtures: ${reached.length} request(s) reached the Host while the plugin refused them (${reached
        .slice(0, 5)
        .map((r) => `${r.method} ${r.path}`)
        .join(', ')}).`,
    );

  // The positive fixtures, for contrast: accepted, and for Host Forms planned through prepare.
  for (const form of ctx.forms) {
    if (!form.positive) continue;
    count(ctx.report, 'positive-fixtures');
    const rt = typeOf(form);
    const { config } = typedConfig(rt, form.positive, `positive-${path.basename(form.dir)}`);
    const v = await answer(() => ctx.plugin.validateResourceConfig({ type_name: rt.typeName, config: mp(encodeMsgpack(config, rt.valueType)) }));
    if (!v.ok || errors(v.value.diagnostics).length) {
      violation(
        ctx,
        `positive fixture of ${path.basename(form.dir)}: ${rt.typeName} refused it at ValidateResourceConfig: ${v.ok ? errors(v.value.diagnostics).map(oneLine).join('; ') : v.why}.`,
      );
      continue;
    }
    if (!form.onHost) continue;
    const p = await answer(() =>
      ctx.plugin.planResourceChange({
        type_name: rt.typeName,
        prior_state: NIL,
        proposed_new_state: mp(encodeMsgpack(proposedForCreate(rt, config), rt.valueType)),
        config: mp(encodeMsgpack(config, rt.valueType)),
        prior_private: Buffer.alloc(0),
      }),
    );
    if (!p.ok || errors(p.value.diagnostics).length)
      violation(
        ctx,
        `positive fixture of ${path.basename(form.dir)}: PlanResourceChange failed: ${p.ok ? errors(p.value.diagnostics).map(oneLine).join('; ') : p.why}.`,
      );
  }
  await checkAlive(ctx, 'negative fixtures');
}

// ---------- configurations generated from the schemas ----------

/** The same spec through takoform_resource: refused offline exactly when the Host's schema refuses it; otherwise planned through prepare. */
async function genericRoute(ctx: Context, form: FormData, spec: JsonObject, hostVerdict: readonly string[], name: string): Promise<string[]> {
  count(ctx.report, 'fuzz:config:generic');
  const problems: string[] = [];
  const config = genericConfig(form.catalogForm, spec, `g${name}`);
  const bytes = encodeMsgpack(config, GENERIC_TYPE);
  const v = await answer(() => ctx.plugin.validateResourceConfig({ type_name: GENERIC_TYPE_NAME, config: mp(bytes) }));
  if (!v.ok) return [`ValidateResourceConfig(${GENERIC_TYPE_NAME}) got no answer: ${v.why}`];
  problems.push(...diagnosticProblems(v.value.diagnostics, GENERIC_TYPE).map((p) => `${GENERIC_TYPE_NAME}: ${p}`));
  const refused = errors(v.value.diagnostics);
  // The name is judged by the Host's name grammar, the spec by the Host's schema: each
  // refusal must match its own verdict.
  const nameRefusals = refused.filter((d) => d.summary === 'Invalid resource name');
  const specRefusals = refused.filter((d) => d.summary !== 'Invalid resource name');
  const nameProblem = resourceNameProblem(`g${name}`);
  if (nameProblem && nameRefusals.length === 0) problems.push(`${GENERIC_TYPE_NAME} accepted the name "g${name}", which the Host refuses (${nameProblem})`);
  if (!nameProblem && nameRefusals.length > 0)
    problems.push(`${GENERIC_TYPE_NAME} refused the name "g${name}", which the Host accepts: ${nameRefusals.map(oneLine).join('; ')}`);
  if (hostVerdict.length > 0 && specRefusals.length === 0)
    problems.push(`${GENERIC_TYPE_NAME} accepted a spec the Host's schema refuses (${hostVerdict.slice(0, 3).join('; ')})`);
  if (hostVerdict.length === 0 && specRefusals.length > 0)
    problems.push(`${GENERIC_TYPE_NAME} refused a spec the Host's schema accepts: ${specRefusals.map(oneLine).join('; ')}`);
  if (refused.length > 0 || !form.onHost) return problems;
  const computedOnly = new Set(['spec_json', 'id', 'uid', 'generation', 'revision', 'conditions_json', 'ready', 'outputs_json', 'pending_operation']);
  const proposed = objectValue(
    Object.entries(config).map(([k, val]): [string, TfValue] => [k, computedOnly.has(k) || (k === 'space' && val === null) ? UNKNOWN : val]),
  );
  const p = await answer(() =>
    ctx.plugin.planResourceChange({
      type_name: GENERIC_TYPE_NAME,
      prior_state: NIL,
      proposed_new_state: mp(encodeMsgpack(proposed, GENERIC_TYPE)),
      config: mp(bytes),
      prior_private: Buffer.alloc(0),
    }),
  );
  if (!p.ok) return [...problems, `PlanResourceChange(${GENERIC_TYPE_NAME}) got no answer: ${p.why}`];
  problems.push(...diagnosticProblems(p.value.diagnostics, GENERIC_TYPE).map((x) => `${GENERIC_TYPE_NAME} plan: ${x}`));
  const refusal = errors(p.value.diagnostics).find((d) => d.summary === 'Host refused: invalid_argument');
  if (refusal && hostVerdict.length > 0) problems.push(`the Host refused at prepare a ${GENERIC_TYPE_NAME} spec the plugin validated: ${oneLine(refusal)}`);
  return problems;
}

async function configFuzz(ctx: Context): Promise<void> {
  const before = ctx.proxy.forwarded.length;
  let creates = 0;
  let deletes = 0;
  const property = fc.asyncProperty(arbConfigCase(ctx.types), async (c) => {
    const problems: string[] = [];
    const rt = ctx.types[c.form]!;
    const form = ctx.forms.find((f) => f.typeName === rt.typeName)!;
    const name = `fz-${ctx.options.seed % 100_000}-${++ctx.names}`;
    const { raw, defect } = configRaw(rt, c, name);
    const bytes = pack(raw);
    count(ctx.report, 'fuzz:config');
    // What the plugin will make of these bytes (or why it cannot).
    let decoded: TfObject | null = null;
    let decodeError: unknown;
    try {
      decoded = decodeObject({ msgpack: bytes, json: Buffer.alloc(0) }, rt.valueType);
    } catch (e) {
      decodeError = e;
    }
    const v = await answer(() => ctx.plugin.validateResourceConfig({ type_name: rt.typeName, config: mp(bytes) }));
    if (!v.ok) throw new Error(`ValidateResourceConfig(${rt.typeName}) got no answer: ${v.why}`);
    problems.push(...diagnosticProblems(v.value.diagnostics, rt.valueType));
    const validateErrors = errors(v.value.diagnostics);
    if (defect || decodeError !== undefined) {
      count(ctx.report, 'fuzz:config:malformed');
      if (validateErrors.length === 0) problems.push(`a configuration whose msgpack does not fit ${rt.typeName} was accepted`);
      if (problems.length) throw new Error(problems.join('; '));
      return;
    }
    if (!decoded) throw new Error('the configuration decoded to null');
    const known = isWhollyKnown(decoded);
    // The spec the plugin would send, and the Host's own verdict on it.
    let spec: JsonObject | undefined;
    if (known) {
      try {
        spec = toSpec(rt.fields, decoded);
      } catch {
        spec = undefined; // not expressible as I-JSON: the plugin must refuse it
      }
    }
    const hostVerdict = spec ? hostSchemaProblems(rt.form, spec) : undefined;
    if (c.generic && spec && hostVerdict && decoded.name !== null && typeof decoded.name === 'string') {
      problems.push(...(await genericRoute(ctx, form, spec, hostVerdict, decoded.name)));
    }
    if (validateErrors.length > 0) {
      count(ctx.report, 'fuzz:config:refused');
      if (known && spec === undefined && !validateErrors.some((d) => d.summary === 'Invalid value'))
        problems.push(`a value that cannot travel as I-JSON was refused without an "Invalid value" diagnostic: ${validateErrors.map(oneLine).join('; ')}`);
      const schemaRefusals = validateErrors.filter((d) => d.summary === 'Value not allowed by the Form');
      if (hostVerdict && hostVerdict.length === 0 && schemaRefusals.length > 0) {
        problems.push(
          `the plugin refused a configuration the Host's schema accepts (spec ${short(JSON.stringify(spec), 300)}): ${schemaRefusals.map(oneLine).join('; ')}`,
        );
      }
      if (problems.length) throw new Error(problems.join('; '));
      return;
    }
    count(ctx.report, 'fuzz:config:accepted');
    if (known && spec === undefined) problems.push('the plugin accepted a value that cannot travel as I-JSON');
    if (hostVerdict && hostVerdict.length > 0) {
      problems.push(
        `the plugin accepted a configuration the Host's schema refuses (${hostVerdict.slice(0, 3).join('; ')}); spec ${short(JSON.stringify(spec), 300)}`,
      );
    }
    const configDv = mp(bytes);
    const p = await answer(() =>
      ctx.plugin.planResourceChange({
        type_name: rt.typeName,
        prior_state: NIL,
        proposed_new_state: mp(encodeMsgpack(proposedForCreate(rt, decoded), rt.valueType)),
        config: configDv,
        prior_private: Buffer.alloc(0),
      }),
    );
    if (!p.ok) throw new Error(`PlanResourceChange(${rt.typeName}) got no answer: ${p.why}`);
    problems.push(...diagnosticProblems(p.value.diagnostics, rt.valueType));
    const planErrors = errors(p.value.diagnostics);
    if (planErrors.length) {
      count(ctx.report, 'fuzz:config:plan-refused');
      count(ctx.report, `fuzz:config:plan-refused:${planErrors[0]!.summary}`);
      const refusal = planErrors.find((d) => d.summary === 'Host refused: invalid_argument');
      if (refusal && hostVerdict && hostVerdict.length > 0) problems.push(`the Host refused at prepare what the plugin validated: ${oneLine(refusal)}`);
      if (form.onHost && planErrors.some((d) => d.summary.startsWith('Provider error') || d.summary === 'Unexpected provider error'))
        problems.push(`PlanResourceChange failed inside the provider: ${planErrors.map(oneLine).join('; ')}`);
      if (problems.length) throw new Error(problems.join('; '));
      return;
    }
    count(ctx.report, 'fuzz:config:planned');
    let planned: TfObject | null = null;
    try {
      planned = decodeObject(p.value.planned_state, rt.valueType);
    } catch (e) {
      problems.push(`the planned state does not decode: ${(e as Error).message}`);
    }
    if (planned) {
      for (const attr of rt.schema.block.attributes) {
        const broken = planBreaksConfig(attr, decoded[attr.name] ?? null, planned[attr.name] ?? null, attr.name);
        if (broken) problems.push(`core would refuse the plan ("planned value does not match config"): ${broken}`);
      }
    }
    const bound = (p.value.planned_private?.length ?? 0) > 0;
    if (planned && c.apply && known && form.onHost && bound && problems.length === 0) {
      count(ctx.report, 'fuzz:config:applied');
      creates++;
      const a = await answer(() =>
        ctx.plugin.applyResourceChange({
          type_name: rt.typeName,
          prior_state: NIL,
          planned_state: p.value.planned_state!,
          config: configDv,
          planned_private: p.value.planned_private,
        }),
      );
      if (!a.ok) throw new Error(`ApplyResourceChange(${rt.typeName}) got no answer: ${a.why}`);
      problems.push(...diagnosticProblems(a.value.diagnostics, rt.valueType));
      const applyErrors = errors(a.value.diagnostics);
      const refusal = applyErrors.find((d) => d.summary === 'Host refused: invalid_argument');
      if (refusal && hostVerdict && hostVerdict.length > 0) problems.push(`the Host refused at apply what the plugin planned: ${oneLine(refusal)}`);
      const created = decodeObject(a.value.new_state, rt.valueType);
      if (created && applyErrors.length === 0) {
        deletes++;
        const d = await answer(() =>
          ctx.plugin.applyResourceChange({
            type_name: rt.typeName,
            prior_state: a.value.new_state!,
            planned_state: NIL,
            config: NIL,
            planned_private: Buffer.alloc(0),
          }),
        );
        if (!d.ok) throw new Error(`ApplyResourceChange(delete ${rt.typeName}) got no answer: ${d.why}`);
        if (errors(d.value.diagnostics).length) problems.push(`deleting what was just created failed: ${errors(d.value.diagnostics).map(oneLine).join('; ')}`);
      }
    }
    if (problems.length) throw new Error(problems.join('; '));
  });
  const details = await fc.check(property, { seed: ctx.options.seed, numRuns: ctx.options.fuzzRuns, interruptAfterTimeLimit: timeLimit(ctx) });
  recordCheck(ctx, 'fuzz:config', details);
  // Proof that nothing the Host's schema refuses was sent to be stored: every mutating
  // request the Host received is one of the creates and deletes of accepted configurations.
  const writes = mutating(ctx.proxy, before);
  const puts = writes.filter((r) => r.method === 'PUT').length;
  const dels = writes.filter((r) => r.method === 'DELETE').length;
  count(ctx.report, 'fuzz:config:host-writes', writes.length);
  if (puts !== creates || dels !== deletes || writes.length !== puts + dels) {
    violation(
      ctx,
      `fuzz:config: the Host received ${puts} PUT, ${dels} DELETE and ${writes.length - puts - dels} other writes, but only ${creates} creates and ${deletes} deletes of accepted configurations were applied (seed ${ctx.options.seed}).`,
    );
  }
  await checkAlive(ctx, 'fuzz:config');
}

// ---------- raw msgpack and JSON in every RPC that takes a value ----------

interface RpcCase {
  readonly name: string;
  /** 'msgpack': the payload is a DynamicValue; 'json': raw JSON bytes (RawState and friends). */
  readonly input: 'msgpack' | 'json';
  /** The type the payload is decoded with (msgpack inputs). */
  readonly type?: TfType;
  /** Only payloads that cannot decode are sent (an RPC that would act on a decodable value). */
  readonly onlyUndecodable?: boolean;
  send(plugin: PluginClient, payload: DynamicValue): Promise<{ diagnostics?: Diag[]; error?: { text: string } | null }>;
}

function rpcCases(types: readonly FormResourceType[]): RpcCase[] {
  const rt = types.find((t) => t.typeName === 'takoform_range_sequence') ?? types[0]!;
  const edge = types.find((t) => t.typeName.startsWith('takoform_edge_worker_cron')) ?? types[types.length - 1]!;
  const cases: RpcCase[] = [
    { name: 'ValidateProviderConfig', input: 'msgpack', type: PROVIDER_TYPE, send: (p, v) => p.validateProviderConfig({ config: v }) },
    {
      name: 'ConfigureProvider',
      input: 'msgpack',
      type: PROVIDER_TYPE,
      onlyUndecodable: true,
      send: (p, v) => p.configureProvider({ terraform_version: '1.12.6', config: v }),
    },
  ];
  for (const t of [rt, edge]) {
    cases.push(
      {
        name: `ValidateResourceConfig(${t.typeName})`,
        input: 'msgpack',
        type: t.valueType,
        send: (p, v) => p.validateResourceConfig({ type_name: t.typeName, config: v }),
      },
      {
        name: `PlanResourceChange(${t.typeName}).prior_state`,
        input: 'msgpack',
        type: t.valueType,
        onlyUndecodable: true,
        send: (p, v) => p.planResourceChange({ type_name: t.typeName, prior_state: v, proposed_new_state: NIL, config: NIL }),
      },
      {
        name: `PlanResourceChange(${t.typeName}).proposed_new_state`,
        input: 'msgpack',
        type: t.valueType,
        onlyUndecodable: true,
        send: (p, v) => p.planResourceChange({ type_name: t.typeName, prior_state: NIL, proposed_new_state: v, config: NIL }),
      },
      {
        name: `PlanResourceChange(${t.typeName}).config`,
        input: 'msgpack',
        type: t.valueType,
        onlyUndecodable: true,
        send: (p, v) => p.planResourceChange({ type_name: t.typeName, prior_state: NIL, proposed_new_state: NIL, config: v }),
      },
      {
        name: `ApplyResourceChange(${t.typeName}).prior_state`,
        input: 'msgpack',
        type: t.valueType,
        onlyUndecodable: true,
        send: (p, v) => p.applyResourceChange({ type_name: t.typeName, prior_state: v, planned_state: NIL, config: NIL }),
      },
      {
        name: `ApplyResourceChange(${t.typeName}).planned_state`,
        input: 'msgpack',
        type: t.valueType,
        onlyUndecodable: true,
        send: (p, v) => p.applyResourceChange({ type_name: t.typeName, prior_state: NIL, planned_state: v, config: NIL }),
      },
      {
        name: `ReadResource(${t.typeName})`,
        input: 'msgpack',
        type: t.valueType,
        onlyUndecodable: true,
        send: (p, v) => p.readResource({ type_name: t.typeName, current_state: v }),
      },
      {
        name: `ImportResourceState(${t.typeName}).identity`,
        input: 'msgpack',
        type: IDENTITY_TYPE,
        onlyUndecodable: true,
        send: (p, v) => p.importResourceState({ type_name: t.typeName, id: 'x', identity: { identity_data: v } }),
      },
      {
        name: `UpgradeResourceState(${t.typeName})`,
        input: 'json',
        send: (p, v) => p.upgradeResourceState({ type_name: t.typeName, version: 0, raw_state: { json: v.msgpack } }),
      },
      {
        name: `UpgradeResourceIdentity(${t.typeName})`,
        input: 'json',
        send: (p, v) => p.upgradeResourceIdentity({ type_name: t.typeName, version: 0, raw_identity: { json: v.msgpack } }),
      },
      {
        name: `MoveResourceState(${GENERIC_TYPE_NAME} → ${t.typeName})`,
        input: 'json',
        send: (p, v) =>
          p.moveResourceState({
            source_provider_address: 'registry.takoform.dev/takoform/takoform',
            source_type_name: GENERIC_TYPE_NAME,
            source_schema_version: 0,
            source_state: { json: v.msgpack },
            target_type_name: t.typeName,
          }),
      },
    );
  }
  cases.push(
    {
      name: `ValidateResourceConfig(${GENERIC_TYPE_NAME})`,
      input: 'msgpack',
      type: GENERIC_TYPE,
      send: (p, v) => p.validateResourceConfig({ type_name: GENERIC_TYPE_NAME, config: v }),
    },
    {
      name: `PlanResourceChange(${GENERIC_TYPE_NAME}).config`,
      input: 'msgpack',
      type: GENERIC_TYPE,
      onlyUndecodable: true,
      send: (p, v) => p.planResourceChange({ type_name: GENERIC_TYPE_NAME, prior_state: NIL, proposed_new_state: NIL, config: v }),
    },
    {
      name: `ApplyResourceChange(${GENERIC_TYPE_NAME}).planned_state`,
      input: 'msgpack',
      type: GENERIC_TYPE,
      onlyUndecodable: true,
      send: (p, v) => p.applyResourceChange({ type_name: GENERIC_TYPE_NAME, prior_state: NIL, planned_state: v, config: NIL }),
    },
    {
      name: `ReadResource(${GENERIC_TYPE_NAME})`,
      input: 'msgpack',
      type: GENERIC_TYPE,
      onlyUndecodable: true,
      send: (p, v) => p.readResource({ type_name: GENERIC_TYPE_NAME, current_state: v }),
    },
    {
      name: `UpgradeResourceState(${GENERIC_TYPE_NAME})`,
      input: 'json',
      send: (p, v) => p.upgradeResourceState({ type_name: GENERIC_TYPE_NAME, version: 0, raw_state: { json: v.msgpack } }),
    },
    { name: 'CallFunction', input: 'msgpack', type: T.dynamic, send: (p, v) => p.callFunction({ name: 'nope', arguments: [v] }) },
  );
  for (const ds of DATA_SOURCES) {
    cases.push(
      {
        name: `ValidateDataResourceConfig(${ds.typeName})`,
        input: 'msgpack',
        type: ds.valueType,
        send: (p, v) => p.validateDataResourceConfig({ type_name: ds.typeName, config: v }),
      },
      {
        name: `ReadDataSource(${ds.typeName})`,
        input: 'msgpack',
        type: ds.valueType,
        onlyUndecodable: true,
        send: (p, v) => p.readDataSource({ type_name: ds.typeName, config: v }),
      },
    );
  }
  return cases;
}

interface Payload {
  readonly kind: string;
  /** Bytes in the DynamicValue's msgpack field (or the raw JSON for 'json' RPCs)... */
  readonly bytes: Uint8Array;
  /** ...or, when set, sent in the DynamicValue's json field instead. */
  readonly asJson: boolean;
}

/** msgpack that is wrong on purpose, in the ways a broken or hostile peer could send it. */
function arbMsgpackPayload(samples: readonly Uint8Array[]): fc.Arbitrary<Payload> {
  const p =
    (kind: string, asJson = false) =>
    (bytes: Uint8Array): Payload => ({ kind, bytes, asJson });
  const deepArray = (depth: number) => Buffer.concat([Buffer.alloc(depth, 0x91), Buffer.from([0xc0])]);
  const deepMap = (depth: number) => Buffer.concat([Buffer.concat(Array.from({ length: depth }, () => Buffer.from([0x81, 0xa1, 0x61]))), Buffer.from([0xc0])]);
  return fc.oneof(
    fc.uint8Array({ minLength: 1, maxLength: 512 }).map(p('random bytes')),
    fc
      .tuple(fc.constantFrom(...samples), fc.double({ min: 0, max: 1, noNaN: true }))
      .map(([s, f]) => p('truncated')(s.subarray(0, Math.max(1, Math.floor(s.length * f) - 1)))),
    fc.tuple(fc.constantFrom(...samples), fc.uint8Array({ minLength: 1, maxLength: 16 })).map(([s, extra]) => p('trailing bytes')(Buffer.concat([s, extra]))),
    fc
      .constantFrom<unknown>(42, 'a string', [1, 2], true, 1.5, new Uint8Array([1, 2, 3]), 2n ** 64n - 1n, -(2n ** 63n), new ExtData(-1, new Uint8Array(12)))
      .map((v) => p('wrong top-level type')(pack(v))),
    fc.tuple(fc.constantFrom(...HOSTILE_KEYS), fc.constantFrom<unknown>(1, 'x', null, [], new ExtData(5, new Uint8Array([1])))).map(([k, v]) =>
      p('object with an odd key')(
        pack(
          new Map<unknown, unknown>([
            [k, v],
            ['name', 'x'],
          ]),
        ),
      ),
    ),
    fc
      .constantFrom<unknown>(
        new Map<unknown, unknown>([[1, 'int key']]),
        new Map<unknown, unknown>([[[1], 'array key']]),
        new Map<unknown, unknown>([[new Uint8Array([1]), 'bin key']]),
        new Map<unknown, unknown>([[null, 'nil key']]),
      )
      .map((m) => p('map with non-string keys')(pack(m))),
    fc.integer({ min: 1_000, max: 200_000 }).map((d) => p('deeply nested arrays')(deepArray(d))),
    fc.integer({ min: 1_000, max: 50_000 }).map((d) => p('deeply nested maps')(deepMap(d))),
    fc
      .constantFrom(
        // Length headers that promise far more than follows.
        Buffer.from([0xdb, 0xff, 0xff, 0xff, 0xff, 0x61]),
        Buffer.from([0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0]),
        Buffer.from([0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 0x61, 0xc0]),
        Buffer.from([0xc6, 0x7f, 0xff, 0xff, 0xff, 0x00]),
        Buffer.from([0xc9, 0x7f, 0xff, 0xff, 0xff, 0x01]),
        // Invalid UTF-8 inside a str, and a reserved byte.
        Buffer.from([0xa3, 0xff, 0xfe, 0xfd]),
        Buffer.from([0xc1]),
      )
      .map(p('lying length or reserved byte')),
    fc.constantFrom('{"name":"x"}', '{', '[', 'null', '{"a":1,"a":2}', '\u00ff\u00fe', '1e400').map((t) => p('JSON-encoded DynamicValue', true)(utf8(t))),
  );
}

/** JSON that is wrong on purpose, for RawState and friends. */
function arbJsonPayload(stateSample: string): fc.Arbitrary<Payload> {
  const p =
    (kind: string) =>
    (text: string | Uint8Array): Payload => ({ kind, bytes: typeof text === 'string' ? utf8(text) : text, asJson: false });
  return fc.oneof(
    fc.uint8Array({ minLength: 1, maxLength: 256 }).map(p('random bytes')),
    fc.double({ min: 0, max: 1, noNaN: true }).map((f) => p('truncated state JSON')(stateSample.slice(0, Math.max(1, Math.floor(stateSample.length * f) - 1)))),
    fc
      .constantFrom('', '{', '[', '{"a":1,"a":', 'nul', '{"name":}', "{'name':'x'}", '{"name":"x"}}', '\u0000', '[1,2', '{"__proto__":{"polluted":true}')
      .map(p('broken JSON')),
    fc.constantFrom('[1,2,3]', '"a string"', '42', 'true', '1e400').map(p('JSON that is not an object')),
    fc.integer({ min: 1_000, max: 200_000 }).map((d) => p('deeply nested JSON')('['.repeat(d) + ']'.repeat(d))),
  );
}

/** What the plugin must do with a payload: refuse it with a diagnostic, or (when it is a legitimate value) anything but crash. */
function mustRefuse(c: RpcCase, payload: Payload): boolean {
  if (c.input === 'json') {
    try {
      const parsed: unknown = JSON.parse(Buffer.from(payload.bytes).toString('utf8'));
      // Valid JSON: only a state must be an object (or null); other RPCs may say what they like.
      return c.name.startsWith('UpgradeResourceState') && parsed !== null && !isRecord(parsed);
    } catch {
      return true;
    }
  }
  if (payload.asJson) return true;
  try {
    const v = decodeMsgpack(payload.bytes, c.type ?? T.dynamic);
    if (v === null) return false; // "no value": legitimate for some RPCs; a crash would still be caught
    return c.type !== undefined && c.type.kind === 'object' && !isObjectValue(v);
  } catch {
    return true;
  }
}

async function msgpackFuzz(ctx: Context): Promise<void> {
  const before = ctx.proxy.forwarded.length;
  const cases = rpcCases(ctx.types);
  const rt = ctx.types.find((t) => t.typeName === 'takoform_range_sequence') ?? ctx.types[0]!;
  const sampleConfig = typedConfig(rt, { lower: 1, upper: 2 }, 'sample').config;
  const samples = [
    encodeMsgpack(sampleConfig, rt.valueType),
    encodeMsgpack(
      objectValue([
        ['endpoint', 'http://127.0.0.1:1'],
        ['token', 't'],
        ['space', 's'],
      ]),
      PROVIDER_TYPE,
    ),
    pack(dynamicRaw({ a: [1, 'b', { c: true }] })),
  ];
  const stateSample = JSON.stringify({ id: 'hostile/x/y/z', name: 'x', space: 'hostile', lower: 1, upper: 2, mode: 'safe', timeouts: null });
  const arb = fc
    .integer({ min: 0, max: cases.length - 1 })
    .chain((i) => fc.tuple(fc.constant(i), cases[i]!.input === 'json' ? arbJsonPayload(stateSample) : arbMsgpackPayload(samples)));
  let skipped = 0;
  const property = fc.asyncProperty(arb, async ([i, payload]) => {
    const c = cases[i]!;
    const refuse = mustRefuse(c, payload);
    if (c.onlyUndecodable && !refuse) {
      skipped++; // a value the RPC would act on: not this property's business
      return;
    }
    count(ctx.report, 'fuzz:msgpack');
    count(ctx.report, `fuzz:msgpack:${payload.kind}`);
    const dv: DynamicValue = payload.asJson ? { json: Buffer.from(payload.bytes) } : { msgpack: Buffer.from(payload.bytes) };
    const r = await answer(() => c.send(ctx.plugin, dv));
    if (!r.ok) throw new Error(`${c.name} with ${payload.kind} (${payload.bytes.length} bytes) got no answer: ${r.why}`);
    if (!ctx.plugin.alive()) throw new Error(`the plugin process died on ${c.name} with ${payload.kind}`);
    const diags = r.value.diagnostics ?? [];
    const problems = diagnosticProblems(diags, c.type ?? T.dynamic);
    if (c.name === 'CallFunction') {
      if (!r.value.error?.text) problems.push('CallFunction answered without an error');
    } else if (refuse && errors(diags).length === 0) problems.push(`${c.name} accepted ${payload.kind} without an error diagnostic`);
    if (problems.length) throw new Error(`${c.name} with ${payload.kind} (${payload.bytes.length} bytes): ${problems.join('; ')}`);
  });
  const details = await fc.check(property, { seed: ctx.options.seed, numRuns: ctx.options.fuzzRuns * 2, interruptAfterTimeLimit: timeLimit(ctx) });
  recordCheck(ctx, 'fuzz:msgpack', details);
  if (skipped) ctx.report.notes.push(`fuzz:msgpack: ${skipped} generated payloads were decodable values for RPCs that would act on them, and were not sent`);
  const writes = mutating(ctx.proxy, before);
  if (writes.length)
    violation(
      ctx,
      `fuzz:msgpack: ${writes.length} mutating request(s) reached the Host while only malformed values were sent (${writes
        .slice(0, 3)
        .map((w) => `${w.method} ${w.path}`)
        .join(', ')}).`,
    );
  await checkAlive(ctx, 'fuzz:msgpack');
}

// ---------- tofu: negative fixtures at validate, malformed Host answers at plan/apply ----------

function hclValue(m: ValueMapping | undefined, v: JsonValue): string {
  if (m?.kind === 'reference' && isRecord(v) && typeof v.name === 'string') return JSON.stringify(v.name);
  if (m?.kind === 'object' && isRecord(v)) {
    return `{ ${Object.entries(v)
      .map(([k, item]) => {
        const f = m.fields.find((x) => x.property === k);
        return `${f?.attribute ?? k} = ${hclValue(f?.mapping, item as JsonValue)}`;
      })
      .join(', ')} }`;
  }
  if (m?.kind === 'list' && Array.isArray(v)) return `[${v.map((item) => hclValue(m.element, item)).join(', ')}]`;
  return JSON.stringify(v);
}

interface TofuDiag {
  readonly severity: string;
  readonly summary: string;
  readonly detail?: string;
  readonly range?: { readonly filename: string; readonly start: { readonly line: number }; readonly end: { readonly line: number } };
}

async function tofuNegativeFixtures(ctx: Context, ws: TofuWorkspace): Promise<void> {
  const fixtures = loadNegativeFixtures(ctx.forms);
  const lines: string[] = PROVIDER_BLOCK.split('\n');
  const blocks: { label: string; start: number; end: number; expectLine?: number; generic: boolean }[] = [];
  fixtures.forEach((fx, i) => {
    const rt = ctx.types.find((t) => t.typeName === fx.form.typeName)!;
    const start = lines.length + 1;
    lines.push(`resource "${rt.typeName}" "neg_${i}" {`, `  name = "neg-${i}"`);
    let expectLine: number | undefined;
    for (const [prop, value] of Object.entries(fx.spec)) {
      const field = rt.fields.find((f) => f.property === prop);
      if (fx.offending.includes(prop)) expectLine = lines.length + 1;
      lines.push(`  ${field?.attribute ?? topLevelAttributeName(prop)} = ${hclValue(field?.mapping, value)}`);
    }
    lines.push('}');
    blocks.push({ label: `${fx.label} as ${rt.typeName}`, start, end: lines.length, ...(expectLine !== undefined ? { expectLine } : {}), generic: false });
    const ref = fx.form.catalogForm.formRef;
    const gstart = lines.length + 1;
    lines.push(
      `resource "${GENERIC_TYPE_NAME}" "gneg_${i}" {`,
      `  api_version        = ${JSON.stringify(ref.apiVersion)}`,
      `  kind               = ${JSON.stringify(ref.kind)}`,
      `  definition_version = ${JSON.stringify(ref.definitionVersion)}`,
      `  schema_digest      = ${JSON.stringify(ref.schemaDigest)}`,
      `  name               = "gneg-${i}"`,
      `  spec               = ${JSON.stringify(fx.spec)}`,
      '}',
    );
    blocks.push({ label: `${fx.label} as ${GENERIC_TYPE_NAME}`, start: gstart, end: lines.length, expectLine: gstart + 6, generic: true });
  });
  writeFileSync(path.join(ws.dir, 'main.tf'), lines.join('\n') + '\n');
  const before = ctx.proxy.seen.length;
  const r = await ws.run(['validate', '-json', '-no-color']);
  count(ctx.report, 'negative-fixtures:tofu', blocks.length);
  let out: { valid?: boolean; diagnostics?: TofuDiag[] };
  try {
    out = JSON.parse(r.stdout) as typeof out;
  } catch {
    violation(ctx, `tofu validate -json of the negative fixtures printed no JSON (exit ${r.code}): ${short(r.stdout + r.stderr, 800)}`);
    return;
  }
  const diags = (out.diagnostics ?? []).filter((d) => d.severity === 'error');
  if (out.valid !== false) violation(ctx, 'tofu validate called the negative fixtures valid.');
  crashMarkers(ctx, 'tofu validate of the negative fixtures', r);
  for (const b of blocks) {
    const inBlock = diags.filter((d) => d.range && d.range.filename === 'main.tf' && d.range.start.line >= b.start && d.range.start.line <= b.end);
    if (inBlock.length === 0) violation(ctx, `tofu validate: no error located in the block of negative fixture ${b.label} (lines ${b.start}-${b.end}).`);
    else if (b.expectLine !== undefined && !inBlock.some((d) => d.range!.start.line === b.expectLine)) {
      violation(
        ctx,
        `tofu validate: negative fixture ${b.label} was refused, but not at the offending attribute (line ${b.expectLine}): ${inBlock.map((d) => `line ${d.range!.start.line} "${d.summary}"`).join(', ')}.`,
      );
    }
  }
  const reached = ctx.proxy.seen.slice(before);
  if (reached.length) violation(ctx, `tofu validate of the negative fixtures sent ${reached.length} request(s) to the Host.`);
}

function crashMarkers(ctx: Context, what: string, r: TofuRun): void {
  const text = `${r.stdout}\n${r.stderr}`;
  const m =
    /panic:|Plugin did not respond|plugin exited|unexpected EOF|Error: rpc error|Provider produced invalid|Provider produced inconsistent|This is a bug in the takoform provider/.exec(
      text,
    );
  if (m)
    violation(ctx, `${what}: the output shows a crash or a provider bug ("${m[0]}"): ${short(text.slice(Math.max(0, m.index - 300), m.index + 500), 900)}`);
}

interface StateEntry {
  readonly name: string;
  readonly uid: string;
  readonly generation: string;
  readonly upper: number;
}

function tofuState(ws: TofuWorkspace): Map<string, StateEntry> {
  const file = path.join(ws.dir, 'terraform.tfstate');
  const out = new Map<string, StateEntry>();
  if (!existsSync(file)) return out;
  const state = JSON.parse(readFileSync(file, 'utf8')) as { resources?: { type: string; instances: { attributes: Record<string, unknown> }[] }[] };
  for (const res of state.resources ?? []) {
    if (res.type !== 'takoform_range_sequence') continue;
    for (const inst of res.instances) {
      const a = inst.attributes;
      out.set(String(a.name), { name: String(a.name), uid: String(a.uid), generation: String(a.generation), upper: Number(a.upper) });
    }
  }
  return out;
}

async function malformedResponses(ctx: Context, workspace: TofuWorkspace, space: string): Promise<void> {
  const api = new HostApi(ctx.host.url, ctx.host.token, space);
  const ws: TofuWorkspace = {
    ...workspace,
    run: async (args, env) => {
      const started = Date.now();
      const r = await workspace.run(args, env);
      ctx.options.log?.(`hostile-input: tofu ${args.join(' ')} → exit ${r.code} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return r;
    },
  };
  const tf = (uppers: Record<string, number>) =>
    writeFileSync(
      path.join(ws.dir, 'main.tf'),
      PROVIDER_BLOCK +
        Object.entries(uppers)
          .map(([n, upper]) => `resource "takoform_range_sequence" "${n.replace(/-/g, '_')}" {\n  name  = "${n}"\n  lower = 1\n  upper = ${upper}\n}\n`)
          .join(''),
    );
  const hostSide = async (name: string): Promise<{ uid: string; generation: string; upper: number } | undefined> => {
    const r = await api.read(RANGE_SEQUENCE_REF, name);
    if (r.status === 404) return undefined;
    const body = r.body as { metadata: { uid: string; generation: string }; spec: { upper: number } };
    return { uid: body.metadata.uid, generation: body.metadata.generation, upper: body.spec.upper };
  };
  /** State never names a resource the Host does not have, nor a newer generation than the Host's. */
  const stateConsistent = async (label: string, expectChangedOnHost: boolean) => {
    for (const s of tofuState(ws).values()) {
      const h = await hostSide(s.name);
      if (!h) violation(ctx, `${label}: state has ${s.name} (uid ${s.uid}), which the Host does not have.`);
      else if (h.uid !== s.uid) violation(ctx, `${label}: state has ${s.name} as uid ${s.uid}; the Host has uid ${h.uid}.`);
      else if (Number(s.generation) > Number(h.generation))
        violation(ctx, `${label}: state has ${s.name} at generation ${s.generation}, newer than the Host's ${h.generation}.`);
      else if (s.generation === h.generation && s.upper !== h.upper)
        violation(ctx, `${label}: state and Host agree on ${s.name}'s generation ${s.generation} but not on its spec (upper ${s.upper} vs ${h.upper}).`);
      else if (!expectChangedOnHost && s.generation !== h.generation)
        violation(ctx, `${label}: state has ${s.name} at generation ${s.generation}; the Host's is ${h.generation} although nothing was committed.`);
    }
  };
  const converge = async (label: string, uppers: Record<string, number>) => {
    const a = await ws.run(['apply', '-auto-approve', '-input=false', '-no-color']);
    crashMarkers(ctx, `${label} (follow-up apply)`, a);
    if (a.code !== 0) violation(ctx, `${label}: the follow-up apply without faults failed (exit ${a.code}): ${short(a.stderr || a.stdout, 800)}`);
    const p = await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color']);
    if (p.code !== 0) violation(ctx, `${label}: after the follow-up apply, plan is not clean (exit ${p.code}): ${short(p.stdout + p.stderr, 800)}`);
    const state = tofuState(ws);
    for (const [name, upper] of Object.entries(uppers)) {
      const h = await hostSide(name);
      const s = state.get(name);
      if (!h || !s || h.uid !== s.uid || h.upper !== upper || s.upper !== upper || h.generation !== s.generation) {
        violation(
          ctx,
          `${label}: after the follow-up apply, ${name} is Host ${JSON.stringify(h)} / state ${JSON.stringify(s)}, expected upper ${upper} on both with the same uid and generation.`,
        );
      }
    }
  };
  const faulty = async (label: string, rule: { method: string; path: string; fault: Fault }, args: string[], expect: { changedOnHost: boolean }) => {
    count(ctx.report, 'malformed-responses');
    count(ctx.report, `malformed:${label}`);
    ctx.proxy.rules.length = 0;
    // Many matches: the client may retry reads, and every attempt must see the fault.
    ctx.proxy.add({ ...rule, times: 50 });
    const seen = ctx.proxy.seen.length;
    const r = await ws.run([...args, '-input=false', '-no-color']);
    ctx.proxy.rules.length = 0;
    const hit = ctx.proxy.seen.slice(seen).some((s) => s.method === rule.method && s.path.includes(rule.path));
    if (!hit) {
      violation(ctx, `${label}: the faulty request (${rule.method} …${rule.path}) was never made, so the case proved nothing (exit ${r.code}).`);
      return;
    }
    crashMarkers(ctx, label, r);
    if (r.code === 0 || (args[0] === 'plan' && r.code === 2))
      violation(ctx, `${label}: tofu ${args[0]} succeeded (exit ${r.code}) on a malformed Host answer.`);
    if (!/Host protocol violation/.test(r.stdout + r.stderr))
      violation(ctx, `${label}: no "Host protocol violation" diagnostic: ${short(r.stderr || r.stdout, 800)}`);
    await stateConsistent(label, expect.changedOnHost);
  };
  const apply = ['apply', '-auto-approve'];
  const seqPath = (name: string) => `/RangeSequence/${name}`;
  const envelope = (code: string) => JSON.stringify({ error: { code, message: 'injected', requestId: 'req_injected', retryable: false } });

  tf({ 'hostile-a': 3 });
  await faulty('truncated JSON (prepare at plan)', { method: 'POST', path: '/resources/prepare', fault: { kind: 'truncate' } }, apply, {
    changedOnHost: false,
  });
  if (await hostSide('hostile-a')) violation(ctx, 'truncated JSON (prepare at plan): the Host has hostile-a although the plan failed.');
  await converge('truncated JSON (prepare at plan)', { 'hostile-a': 3 });

  tf({ 'hostile-a': 3, 'hostile-b': 3 });
  await faulty(
    'duplicate members (create answer)',
    { method: 'PUT', path: seqPath('hostile-b'), fault: { kind: 'rewrite', body: (b) => b.replace('"kind":', '"kind":"X","kind":') } },
    apply,
    { changedOnHost: true },
  );
  await converge('duplicate members (create answer)', { 'hostile-a': 3, 'hostile-b': 3 });

  await faulty(
    'wrong ETag (refresh)',
    { method: 'GET', path: seqPath('hostile-a'), fault: { kind: 'rewrite', headers: (h) => ({ ...h, etag: '"99"' }) } },
    ['plan', '-detailed-exitcode'],
    { changedOnHost: false },
  );
  await converge('wrong ETag (refresh)', { 'hostile-a': 3, 'hostile-b': 3 });

  tf({ 'hostile-a': 4, 'hostile-b': 3 });
  await faulty(
    'wrong status for the envelope code (update answer)',
    { method: 'PUT', path: seqPath('hostile-a'), fault: { kind: 'respond', status: 404, body: envelope('invalid_argument') } },
    apply,
    { changedOnHost: false },
  );
  await converge('wrong status for the envelope code (update answer)', { 'hostile-a': 4, 'hostile-b': 3 });

  tf({ 'hostile-a': 5, 'hostile-b': 3 });
  await faulty(
    'unknown member (update answer)',
    { method: 'PUT', path: seqPath('hostile-a'), fault: { kind: 'rewrite', body: (b) => b.replace(/^\{/, '{"surprise":1,') } },
    apply,
    { changedOnHost: true },
  );
  await converge('unknown member (update answer)', { 'hostile-a': 5, 'hostile-b': 3 });

  await faulty(
    'non-JSON answer (delete)',
    {
      method: 'DELETE',
      path: seqPath('hostile-b'),
      fault: { kind: 'respond', status: 200, headers: { 'content-type': 'text/html' }, body: '<html><body>upstream says hi</body></html>' },
    },
    ['destroy', '-auto-approve'],
    {
      changedOnHost: false,
    },
  );
  const d = await ws.run(['destroy', '-auto-approve', '-input=false', '-no-color']);
  crashMarkers(ctx, 'non-JSON answer (follow-up destroy)', d);
  if (d.code !== 0) violation(ctx, `non-JSON answer (delete): the follow-up destroy failed (exit ${d.code}): ${short(d.stderr, 800)}`);
  for (const n of ['hostile-a', 'hostile-b'])
    if (await hostSide(n)) violation(ctx, `non-JSON answer (delete): ${n} is still on the Host after the follow-up destroy.`);
  if (tofuState(ws).size) violation(ctx, 'non-JSON answer (delete): state still has resources after the follow-up destroy.');
}

// ---------------------------------------------------------------------------------------

export async function runHostileInput(options: ScenarioOptions & { fuzzRuns: number }): Promise<ReliabilityReport> {
  const report = emptyReport('hostile-input');
  const log = options.log ?? (() => undefined);
  const forms = loadForms();
  const types = forms.map((f) => new FormResourceType(f.catalogForm));
  const catalogDir = mkdtempSync(path.join(tmpdir(), 'hostile-input-'));
  const catalog = catalogText(forms);
  writeFileSync(path.join(catalogDir, '.takoform.lock.json'), catalog);
  const host = await startHostProcess([GENERIC_FORMS], undefined, ['--standard-service', 'com.amazonaws.s3']);
  let proxy: FaultProxy | undefined;
  let ctx: Context | undefined;
  try {
    proxy = await FaultProxy.start(host.url);
    const space = 'hostile';
    ctx = { report, options, host, proxy, forms, types, catalogDir, space, plugin: await startPlugin({ catalogDir, proxy, host, space, types }), names: 0 };
    log(`hostile-input: ${forms.length} Forms (${forms.filter((f) => f.onHost).length} on the Host), seed ${options.seed}`);
    const timed = async (label: string, fn: () => Promise<void>) => {
      const started = Date.now();
      await fn();
      report.notes.push(`${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
      log(`hostile-input: ${label} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    };
    const c = ctx;
    await timed('negative fixtures (gRPC)', () => negativeFixtures(c));
    await timed('fuzz:config', () => configFuzz(c));
    await timed('fuzz:msgpack', () => msgpackFuzz(c));
    const ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK, '.takoform.lock.json': catalog }, { url: proxy.url, token: host.token }, 'hostile-tofu');
    const init = await ws.run(['init', '-input=false', '-no-color']);
    if (init.code !== 0) throw new Error(`tofu init failed: ${init.stderr}`);
    await timed('negative fixtures (tofu validate)', () => tofuNegativeFixtures(c, ws));
    await timed('malformed responses (tofu)', () => malformedResponses(c, ws, 'hostile-tofu'));
    return report;
  } finally {
    if (ctx) await ctx.plugin.shutdown().catch(() => ctx?.plugin.kill());
    await proxy?.close();
    await host.stop();
  }
}
