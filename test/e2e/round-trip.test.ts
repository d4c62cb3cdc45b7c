// The round-trip property, through the real CLIs: for every Form in the shared data (the v1
// external family) and the synthetic Forms, values generated from the Form's desired schema
// are written as HCL, applied, and must (1) reach the Host exactly — every value sent, with its
// JSON type, the Host adding only defaults — and (2) re-plan clean: no phantom update, no
// replacement of an equal value. The provider's notion of "changed" and core's must agree.
//
// References are filled with the names of target resources created in the same configuration.
// Values the Host refuses for its own rules (orderedPair, sum, claims, …) are dropped from the
// check, and the test insists that most Forms were really applied, so it cannot pass vacuously.
// ROUND_TRIP_RUNS (default 1) and ROUND_TRIP_SEED replay or widen it.
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { materializeDefaults } from '../../src/common/json-schema-defaults.js';
import type { JsonObject } from '../../src/host-client/index.js';
import { parseCatalog } from '../../src/plugin/catalog/catalog-file.js';
import { FormResourceType } from '../../src/plugin/resource/form-resource-type.js';
import type { FieldMapping } from '../../src/plugin/schema/form-mapping.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { HostApi } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, REPO_ROOT } from '../support/paths.js';
import { arbitraryFor, hclAttributes, type Json } from '../support/schema-values.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const RUNS = Number(process.env.ROUND_TRIP_RUNS ?? 1);
const SEED = Number(process.env.ROUND_TRIP_SEED ?? 20261201);
const SYNTHETIC = path.join(REPO_ROOT, 'test/fixtures/synthetic-forms');
const packageDirs = (root: string) =>
  readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(root, d.name, 'package-index.json')))
    .map((d) => path.join(root, d.name));
const PACKAGES = [...packageDirs(GENERIC_FORMS), ...packageDirs(SYNTHETIC)];

interface Block {
  readonly rt: FormResourceType;
  readonly name: string;
  readonly spec: Record<string, Json>;
  /** Blocks this one names (it is dropped when one of them is). */
  readonly needs: readonly string[];
}

/** Every sent value must come back unchanged; the Host may only add members (defaults). */
function firstDifference(sent: Json, stored: Json | undefined, at = ''): string | undefined {
  if (Array.isArray(sent)) {
    if (!Array.isArray(stored) || stored.length !== sent.length) return `${at || '/'}: sent ${JSON.stringify(sent)}, stored ${JSON.stringify(stored)}`;
    for (let i = 0; i < sent.length; i++) {
      const d = firstDifference(sent[i]!, stored[i], `${at}/${i}`);
      if (d) return d;
    }
    return undefined;
  }
  if (sent !== null && typeof sent === 'object') {
    if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return `${at || '/'}: sent an object, stored ${JSON.stringify(stored)}`;
    for (const [k, v] of Object.entries(sent)) {
      const d = firstDifference(v, (stored as Record<string, Json>)[k], `${at}/${k}`);
      if (d) return d;
    }
    return undefined;
  }
  return Object.is(sent, stored) || sent === stored
    ? undefined
    : `${at || '/'}: sent ${JSON.stringify(sent)} (${typeof sent}), stored ${JSON.stringify(stored)} (${typeof stored})`;
}

describe.each(['tofu', 'terraform'] as const)('the round-trip property through real %s', (cli) => {
  let host: HostProcess;
  let ws: TofuWorkspace;
  let types: FormResourceType[];
  beforeAll(async () => {
    host = await startHostProcess(PACKAGES);
    ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK }, host, 'demo', cli);
    const lock = await ws.provider(['catalog', 'lock', '--endpoint', host.url, '--space', 'demo', ...PACKAGES.flatMap((p) => ['--package', p])]);
    expect(lock.code, lock.stderr).toBe(0);
    const file = path.join(ws.dir, '.takoform.lock.json');
    types = parseCatalog(readFileSync(file), file).forms.map((f) => new FormResourceType(f));
    await ws.ok(['init', '-input=false', '-no-color']);
  });
  afterAll(async () => {
    await host?.stop();
  });

  for (let run = 0; run < RUNS; run++) {
    it(`run ${run + 1}: every generated value reaches the Host exactly and re-plans clean (seed ${SEED + run})`, async () => {
      const rng = { seed: SEED + run };
      const blocks: Block[] = [];
      const targets = new Map<string, Block | null>();
      let counter = 0;
      /** A target of (group, kind) for references: created from a generated minimal spec, without references of its own. */
      // Targets first (generation is asynchronous; references are looked up synchronously).
      const referenced = new Set<string>();
      for (const rt of types) collectReferences(rt.form.desiredSchema, referenced);
      for (const key of referenced) {
        const [group, kind] = key.split('|') as [string, string];
        const rt = types.find((t) => t.form.formRef.apiVersion === group && t.form.formRef.kind === kind);
        const spec = rt
          ? await generate(
              rt,
              () => {
                throw new Error('nested reference');
              },
              { seed: rng.seed + 7919 * ++counter },
              true,
            )
          : undefined;
        targets.set(key, rt && spec ? { rt, name: `tgt-${++counter}`, spec, needs: [] } : null);
      }
      const targetOf = (group: string, kind: string): string => {
        const target = targets.get(`${group}|${kind}`);
        if (!target) throw new Error(`no target for ${group}/${kind}`);
        return target.name;
      };
      for (const rt of types) {
        const needs: string[] = [];
        const spec = await generate(
          rt,
          (group, kind) => {
            const name = targetOf(group, kind);
            needs.push(name);
            return name;
          },
          { seed: rng.seed + 104729 * ++counter },
          false,
        );
        if (spec) blocks.push({ rt, name: `rt-${++counter}`, spec, needs });
      }
      let all = [...[...targets.values()].filter((b): b is Block => b !== null), ...blocks];
      // References as Terraform references (`type.label.name`), so core orders targets first.
      const typeOfName = new Map(all.map((b) => [b.name, b.rt.typeName]));
      const ref = (name: string) => `${typeOfName.get(name)}.${name}.name`;
      const render = (list: readonly Block[]) =>
        PROVIDER_BLOCK +
        list.map((b) => `resource "${b.rt.typeName}" "${b.name}" {\n  name = "${b.name}"\n${hclAttributes(b.rt.fields, b.spec, ref)}}\n`).join('');
      // Core stops the whole run at the first refused plan: first drop the values the Host
      // refuses for the Form's own rules (sum, orderedPair, slots it cannot satisfy), and what names them.
      for (let round = 0; round < 4; round++) {
        writeFileSync(path.join(ws.dir, 'main.tf'), render(all));
        const plan = await ws.run(['plan', '-input=false', '-no-color']);
        if (plan.code === 0) break;
        const refused = new Set([...plan.stderr.matchAll(/with [a-z0-9_]+\.([a-z0-9-]+),/g)].map((m) => m[1]!));
        if (refused.size === 0) throw new Error(`plan failed without naming a block:\n${plan.stderr.slice(-3000)}`);
        all = all.filter((b) => !refused.has(b.name) && b.needs.every((n) => !refused.has(n)));
      }
      const applied = await ws.run(['apply', '-auto-approve', '-input=false', '-no-color']);

      // What the Host stores, for every block; those it refused are dropped with what needs them.
      const api = new HostApi(host.url, host.token);
      const stored = new Map<string, JsonObject>();
      for (const b of all) {
        const r = await api.read(b.rt.form.formRef, b.name);
        if (r.status === 200) stored.set(b.name, r.body.spec as JsonObject);
      }
      const kept = all.filter((b) => stored.has(b.name) && b.needs.every((n) => stored.has(n)));
      const problems: string[] = [];
      for (const b of kept) {
        const expected = materializeDefaults(b.rt.form.desiredSchema, b.spec as JsonObject) as Json;
        const d = firstDifference(expected, stored.get(b.name) as Json);
        if (d) problems.push(`${b.rt.typeName} ${b.name}: ${d}`);
      }
      expect(problems, `apply exit ${applied.code}\n${applied.stderr.slice(-3000)}`).toEqual([]);
      // Most Forms really made it (the property is not vacuous); refusals are the Host's own rules.
      const formsApplied = new Set(kept.map((b) => b.rt.typeName));
      expect(formsApplied.size, `applied: ${[...formsApplied].join(', ')}\n${applied.stderr.slice(-3000)}`).toBeGreaterThanOrEqual(
        Math.ceil(types.length * 0.6),
      );

      // Only what exists stays configured; the plan must be clean.
      writeFileSync(path.join(ws.dir, 'main.tf'), render(kept));
      const plan = await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color']);
      expect(plan.code, `${plan.stdout.slice(-4000)}\n${plan.stderr.slice(-2000)}`).toBe(0);
      await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
    });
  }
});

/**
 * One spec for a Form that its schema accepts (checked offline with the provider's own
 * validator), or undefined when none of a few samples is; `minimal` keeps required members only
 * (for reference targets).
 */
async function generate(
  rt: FormResourceType,
  references: (group: string, kind: string) => string,
  seed: { seed: number },
  minimal: boolean,
): Promise<Record<string, Json> | undefined> {
  let arb: fc.Arbitrary<Json>;
  try {
    arb = arbitraryFor(minimal ? requiredOnly(rt.form.desiredSchema) : rt.form.desiredSchema, references);
  } catch {
    return undefined;
  }
  let samples: Json[];
  try {
    samples = fc.sample(arb, { numRuns: 12, seed: seed.seed });
  } catch {
    return undefined; // a reference that cannot be filled
  }
  for (const sample of samples) {
    // Terraform's null means "not set": an attribute (or nested attribute) cannot carry a
    // JSON null, so the generated spec leaves those members out (nulls inside a free-form
    // value are kept and must round-trip).
    const spec = orderPairs(withoutAttributeNulls(rt.fields, sample as Record<string, Json>));
    // The provider's offline check: what it refuses never reaches the Host anyway.
    if ((await rt.validator.validateDocument(spec as JsonObject, () => [])).length === 0) return spec;
  }
  return undefined;
}

/** Every (group|kind) a reference in the schema names. */
function collectReferences(schema: unknown, out: Set<string>): void {
  if (Array.isArray(schema)) return schema.forEach((s) => collectReferences(s, out));
  if (typeof schema !== 'object' || schema === null) return;
  const o = schema as Record<string, unknown>;
  const p = o.properties as Record<string, { const?: unknown }> | undefined;
  if (
    o.type === 'object' &&
    p &&
    Object.keys(p).sort().join() === 'apiVersion,kind,name' &&
    typeof p.apiVersion?.const === 'string' &&
    typeof p.kind?.const === 'string'
  ) {
    out.add(`${p.apiVersion.const}|${p.kind.const}`);
    return;
  }
  for (const v of Object.values(o)) collectReferences(v, out);
}

function requiredOnly(schema: JsonObject): JsonObject {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  return { ...schema, properties: Object.fromEntries(Object.entries(properties).filter(([k]) => required.has(k))) };
}

function withoutAttributeNulls(fields: readonly FieldMapping[], spec: Record<string, Json>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(spec)) {
    if (v === null) continue;
    const f = fields.find((x) => x.property === k);
    if (f && f.mapping.kind === 'object' && v && typeof v === 'object' && !Array.isArray(v)) out[k] = withoutAttributeNulls(f.mapping.fields, v);
    else if (f && f.mapping.kind === 'list' && f.mapping.element.kind === 'object' && Array.isArray(v)) {
      const element = f.mapping.element;
      out[k] = v.map((item) => (item && typeof item === 'object' && !Array.isArray(item) ? withoutAttributeNulls(element.fields, item) : item));
    } else out[k] = v;
  }
  return out;
}

/** `lower`/`upper` pairs in order, so orderedPair Forms are not nearly always refused. */
function orderPairs(spec: Record<string, Json>): Record<string, Json> {
  const { lower, upper } = spec;
  if (typeof lower === 'number' && typeof upper === 'number' && lower > upper) return { ...spec, lower: upper, upper: lower };
  return spec;
}
