// Resource semantics through real tofu against the real Host: catalog lock with verified
// packages, defaults without perpetual diffs, resets to default, replacement on an
// immutable field, drift, out-of-band delete and re-create, a stale saved plan refused by
// the fence, and import by identity.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostApi, RANGE_COUNTER_REF, RANGE_SEQUENCE_REF } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS } from '../support/paths.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const oneLine = (s: string) => s.replace(/\s+/g, ' ');

// Resource identity (import blocks with `identity`) needs protocol 6.9: OpenTofu >= 1.12 and
// Terraform >= 1.12. Both CLIs here are newer (scripts/install-tofu, scripts/install-terraform
// pin them), and the first test checks that, so the identity case runs through both.
describe.each(['tofu', 'terraform'] as const)('resource lifecycle through real %s', (cli) => {
  let host: HostProcess;
  let ws: TofuWorkspace;
  let api: HostApi;
  const tf = (body: string) => writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + body);
  const plan = (...extra: string[]) => ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color', ...extra]);
  const apply = (...extra: string[]) => ws.ok(['apply', '-auto-approve', '-input=false', '-no-color', ...extra]);

  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence'), path.join(GENERIC_FORMS, 'range-counter')], undefined, [
      '--standard-service',
      'com.amazonaws.s3',
    ]);
    ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK }, host, 'demo', cli);
    api = new HostApi(host.url, host.token);
    const lock = await ws.provider([
      'catalog',
      'lock',
      '--package',
      path.join(GENERIC_FORMS, 'range-sequence'),
      '--package',
      path.join(GENERIC_FORMS, 'range-counter'),
    ]);
    expect(lock.code, lock.stderr).toBe(0);
    await ws.ok(['init', '-input=false', '-no-color']);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('plans the Host default, applies, and then has no changes; removing a value resets it', async () => {
    tf(`resource "takoform_range_sequence" "a" {\n  name  = "seq-a"\n  lower = 1\n  upper = 4\n  mode  = "fast"\n}\n`);
    await apply();
    expect((await api.read(RANGE_SEQUENCE_REF, 'seq-a')).body.spec.mode).toBe('fast');
    expect((await plan()).code).toBe(0);
    tf(`resource "takoform_range_sequence" "a" {\n  name  = "seq-a"\n  lower = 1\n  upper = 4\n}\n`);
    const p = await plan();
    expect(p.code).toBe(2);
    expect(p.stdout).toMatch(/~ mode\s+= "fast" -> "safe"/);
    await apply();
    expect((await api.read(RANGE_SEQUENCE_REF, 'seq-a')).body.spec.mode).toBe('safe');
    expect((await plan()).code).toBe(0);
  });

  it('accepts a timeouts block, changes it without touching the Host, and refuses a bad duration', async () => {
    const before = (await api.read(RANGE_SEQUENCE_REF, 'seq-a')).body;
    tf(`resource "takoform_range_sequence" "a" {\n  name  = "seq-a"\n  lower = 1\n  upper = 4\n  timeouts {\n    create = "5m"\n    update = "90s"\n  }\n}\n`);
    await apply();
    const after = (await api.read(RANGE_SEQUENCE_REF, 'seq-a')).body;
    expect(after.metadata.revision).toBe(before.metadata.revision);
    expect((await plan()).code).toBe(0);
    tf(`resource "takoform_range_sequence" "a" {\n  name  = "seq-a"\n  lower = 1\n  upper = 4\n  timeouts {\n    update = "soon"\n  }\n}\n`);
    const bad = await ws.run(['validate', '-no-color']);
    expect(bad.code).toBe(1);
    expect(oneLine(bad.stderr)).toMatch(/Invalid duration.*"soon" is not a duration/);
    tf(`resource "takoform_range_sequence" "a" {\n  name  = "seq-a"\n  lower = 1\n  upper = 4\n}\n`);
    await apply();
  });

  it('reports an enum violation at validate time, offline, on the right line', async () => {
    tf(`resource "takoform_range_sequence" "a" {\n  name  = "seq-a"\n  lower = 1\n  upper = 4\n  mode  = "turbo"\n}\n`);
    const r = await ws.run(['validate', '-no-color'], { TAKOFORM_ENDPOINT: 'http://127.0.0.1:9' });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/Value not allowed by the Form.*on main\.tf line 11.*must be one of "safe", "fast"/);
    tf(`resource "takoform_range_sequence" "a" {\n  name  = "seq-a"\n  lower = 1\n  upper = 4\n}\n`);
  });

  it('reads the Forms and an existing resource through data sources', async () => {
    tf(
      `resource "takoform_range_sequence" "a" {\n  name  = "seq-a"\n  lower = 1\n  upper = 4\n}\n` +
        `data "takoform_forms" "all" {}\n` +
        `data "takoform_resource" "a" {\n  api_version = takoform_range_sequence.a.form_ref.api_version\n  kind = takoform_range_sequence.a.form_ref.kind\n  definition_version = takoform_range_sequence.a.form_ref.definition_version\n  schema_digest = takoform_range_sequence.a.form_ref.schema_digest\n  name = takoform_range_sequence.a.name\n}\n` +
        `output "types" { value = [for f in data.takoform_forms.all.forms : f.type_name] }\n` +
        `output "uid" { value = data.takoform_resource.a.uid }\n` +
        `output "spec" { value = jsondecode(data.takoform_resource.a.spec_json) }\n`,
    );
    await apply();
    const out = JSON.parse((await ws.ok(['output', '-json'])).stdout);
    expect(out.types.value).toEqual(['takoform_range_counter', 'takoform_range_sequence']);
    expect(out.uid.value).toBe((await api.read(RANGE_SEQUENCE_REF, 'seq-a')).body.metadata.uid);
    expect(out.spec.value).toEqual({ lower: 1, mode: 'safe', upper: 4 });
    expect((await plan()).code).toBe(0);
    tf(`resource "takoform_range_sequence" "a" {\n  name  = "seq-a"\n  lower = 1\n  upper = 4\n}\n`);
    await apply();
  });

  it('shows a change made on the Host as drift and puts it back', async () => {
    const before = (await api.read(RANGE_SEQUENCE_REF, 'seq-a')).body;
    await api.put(RANGE_SEQUENCE_REF, 'seq-a', { lower: 1, upper: 9 }, before.metadata.generation);
    const p = await plan();
    expect(p.code).toBe(2);
    expect(p.stdout).toMatch(/~ upper\s+= 9 -> 4/);
    await apply();
    expect((await api.read(RANGE_SEQUENCE_REF, 'seq-a')).body.spec.upper).toBe(4);
  });

  it('refuses a saved plan when the resource changed on the Host after it was made', async () => {
    tf(`resource "takoform_range_sequence" "a" {\n  name  = "seq-a"\n  lower = 1\n  upper = 5\n}\n`);
    await ws.ok(['plan', '-input=false', '-no-color', '-out', 'stale.tfplan']);
    const current = (await api.read(RANGE_SEQUENCE_REF, 'seq-a')).body;
    await api.put(RANGE_SEQUENCE_REF, 'seq-a', { lower: 2, upper: 4 }, current.metadata.generation);
    const r = await ws.run(['apply', '-input=false', '-no-color', 'stale.tfplan']);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/generation_conflict|changed on the Host since plan/i);
    // Nothing was overwritten: the Host keeps the out-of-band spec.
    expect((await api.read(RANGE_SEQUENCE_REF, 'seq-a')).body.spec).toEqual({ lower: 2, mode: 'safe', upper: 4 });
    await apply();
    expect((await api.read(RANGE_SEQUENCE_REF, 'seq-a')).body.spec.upper).toBe(5);
  });

  it('plans a create when the resource was deleted on the Host', async () => {
    const current = (await api.read(RANGE_SEQUENCE_REF, 'seq-a')).body;
    expect(await api.delete(RANGE_SEQUENCE_REF, 'seq-a', current.metadata.generation)).toBe(204);
    const p = await plan();
    expect(p.code).toBe(2);
    expect(p.stdout).toMatch(/takoform_range_sequence\.a will be created/);
    await apply();
    expect((await api.read(RANGE_SEQUENCE_REF, 'seq-a')).status).toBe(200);
  });

  it('refuses, keeping state, when the name now belongs to another incarnation', async () => {
    const current = (await api.read(RANGE_SEQUENCE_REF, 'seq-a')).body;
    await api.delete(RANGE_SEQUENCE_REF, 'seq-a', current.metadata.generation);
    const recreated = await api.put(RANGE_SEQUENCE_REF, 'seq-a', { lower: 1, upper: 5 });
    const p = await plan();
    expect(p.code).toBe(1);
    expect(oneLine(p.stderr)).toMatch(/Resource was replaced outside this configuration/);
    expect(oneLine(p.stderr)).toContain(recreated.metadata.uid);
    // Recover as the message says: forget the old incarnation and import the new one.
    await ws.ok(['state', 'rm', 'takoform_range_sequence.a']);
    await ws.ok(['import', '-input=false', '-no-color', 'takoform_range_sequence.a', 'demo/seq-a']);
    expect((await plan()).code).toBe(0);
  });

  it('replaces the resource when an immutable field changes', async () => {
    const slot = (name: string) => `external_services = [{ name = "${name}", service = { protocol = "com.amazonaws.s3" } }]`;
    tf(`resource "takoform_range_counter" "c" {\n  name  = "counter-c"\n  lower = 1\n  upper = 2\n  ${slot('OBJECTS')}\n}\n`);
    await apply();
    const first = (await api.read(RANGE_COUNTER_REF, 'counter-c')).body;
    expect(first.spec.externalServices).toEqual([
      { name: 'OBJECTS', required: true, service: { apiVersion: 'standards.takoform.com/v1', protocol: 'com.amazonaws.s3' } },
    ]);
    expect((await plan()).code).toBe(0);
    tf(`resource "takoform_range_counter" "c" {\n  name  = "counter-c"\n  lower = 1\n  upper = 2\n  ${slot('MEDIA')}\n}\n`);
    const p = await plan();
    expect(p.code).toBe(2);
    expect(p.stdout).toMatch(/must be replaced/);
    expect(p.stdout).toMatch(/# forces replacement/);
    await apply();
    const second = (await api.read(RANGE_COUNTER_REF, 'counter-c')).body;
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
    expect(second.spec.externalServices[0].name).toBe('MEDIA');
    expect((await plan()).code).toBe(0);
  });

  it('imports with an import block by ID, then plans no changes', async () => {
    await api.put(RANGE_SEQUENCE_REF, 'seq-by-id', { lower: 2, upper: 3 });
    tf(
      `import {\n  to = takoform_range_sequence.byid\n  id = "demo/seq-by-id"\n}\nresource "takoform_range_sequence" "byid" {\n  name  = "seq-by-id"\n  lower = 2\n  upper = 3\n}\n`,
    );
    const r = await apply();
    expect(r.stdout).toMatch(/1 imported/);
    expect((await plan()).code).toBe(0);
    tf('');
    await apply();
  });

  it('refuses the negative fixture (an undeclared property) at validate, with its location', async () => {
    const fixture = JSON.parse(readFileSync(path.join(GENERIC_FORMS, 'range-counter/fixtures/negative-unexpected-property.json'), 'utf8'));
    const attrs = Object.entries(fixture)
      .map(([k, v]) => `  ${k} = ${JSON.stringify(v)}`)
      .join('\n');
    tf(`resource "takoform_range_counter" "neg" {\n  name = "neg"\n${attrs}\n}\n`);
    const r = await ws.run(['validate', '-no-color']);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/Unsupported argument.*on main\.tf line \d+, in resource "takoform_range_counter" "neg".*unexpected/);
    tf('');
  });

  it('runs a CLI that knows resource identity (OpenTofu/Terraform >= 1.12)', async () => {
    const v = /v(\d+)\.(\d+)\.\d+/.exec((await ws.ok(['version'])).stdout);
    expect(v, 'version').not.toBeNull();
    expect(Number(v![1]) * 1000 + Number(v![2])).toBeGreaterThanOrEqual(1012);
  });

  it('imports by identity with an import block, then plans no changes', async () => {
    await api.put(RANGE_SEQUENCE_REF, 'seq-imported', { lower: 3, upper: 6 });
    tf(
      `import {\n  to = takoform_range_sequence.imp\n  identity = {\n    name  = "seq-imported"\n    space = "demo"\n  }\n}\nresource "takoform_range_sequence" "imp" {\n  name  = "seq-imported"\n  lower = 3\n  upper = 6\n}\n`,
    );
    const r = await apply();
    expect(r.stdout).toMatch(/1 imported/);
    expect((await plan()).code).toBe(0);
  });

  it('refuses an identity of another Form, naming both Forms in full', async () => {
    tf(
      `import {\n  to = takoform_range_sequence.other\n  identity = {\n    name = "seq-imported"\n    kind = "RangeCounter"\n  }\n}\nresource "takoform_range_sequence" "other" {\n  name  = "seq-imported"\n  lower = 3\n  upper = 6\n}\n`,
    );
    const r = await ws.run(['plan', '-input=false', '-no-color']);
    expect(r.code).toBe(1);
    const text = (r.stdout + r.stderr).replace(/\s+/g, ' ');
    expect(text).toMatch(/Identity names another Form/);
    expect(text).toMatch(/manages resources\.publisher\.example\/RangeSequence; the identity names resources\.publisher\.example\/RangeCounter/);
    expect(text).not.toMatch(/undefined/);
  });

  it('destroys everything it manages', async () => {
    tf('');
    await apply();
    expect((await api.read(RANGE_SEQUENCE_REF, 'seq-imported')).status).toBe(404);
    expect((await api.read(RANGE_COUNTER_REF, 'counter-c')).status).toBe(404);
  });
});
