// The foundation's end-to-end path, through real OpenTofu, the real plugin process (AutoMTLS,
// unix socket, handshake) and the real reference Host over HTTP: init, apply, a clean
// re-plan, an in-place update, and destroy, checking the Host's stored resource each time.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, REPO_ROOT } from '../support/paths.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const RANGE_SEQUENCE = {
  group: 'resources.publisher.example',
  kind: 'RangeSequence',
  definitionVersion: '0.1.0',
  schemaDigest: 'sha256:c23a0ad83fc1c32667ec9780bca3be4323990de9a2bb5bc00da9b61f1ec7e390',
};

async function readOnHost(host: HostProcess, name: string): Promise<{ status: number; body: Record<string, any> }> {
  const q = new URLSearchParams({ space: 'demo', definitionVersion: RANGE_SEQUENCE.definitionVersion, schemaDigest: RANGE_SEQUENCE.schemaDigest });
  const res = await fetch(`${host.url}/apis/forms.takoform.com/v1/resources/${RANGE_SEQUENCE.group}/${RANGE_SEQUENCE.kind}/${name}?${q}`, {
    headers: { authorization: `Bearer ${host.token}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe.each(['tofu', 'terraform'] as const)('quickstart through real %s', (cli) => {
  let host: HostProcess;
  let ws: TofuWorkspace;

  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence'), path.join(GENERIC_FORMS, 'range-counter')]);
    ws = createWorkspace(path.join(REPO_ROOT, 'examples/quickstart'), host, 'demo', cli);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('init installs the provider from the mirror', async () => {
    const r = await ws.ok(['init', '-input=false', '-no-color']);
    expect(r.stdout).toMatch(/Installed registry\.takoform\.dev\/takoform\/takoform v0\.2\.0/);
  });

  it('apply creates the resource on the Host with the default materialized', async () => {
    const r = await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect(r.stdout).toMatch(/1 added, 0 changed, 0 destroyed/);
    const onHost = await readOnHost(host, 'quickstart-range');
    expect(onHost.status).toBe(200);
    expect(onHost.body.spec).toEqual({ lower: 3, mode: 'safe', upper: 6 });
    expect(onHost.body.metadata.generation).toBe('1');
    const state = JSON.parse(readFileSync(path.join(ws.dir, 'terraform.tfstate'), 'utf8'));
    const attrs = state.resources[0].instances[0].attributes;
    expect(attrs.uid).toBe(onHost.body.metadata.uid);
    expect(attrs.mode).toBe('safe');
    expect(attrs.id).toBe(`demo/${RANGE_SEQUENCE.group}/${RANGE_SEQUENCE.kind}/${onHost.body.metadata.uid}`);
    expect(JSON.stringify(state)).not.toContain(host.token);
  });

  it('a second plan says "No changes" (exit code 0), twice', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await ws.ok(['plan', '-detailed-exitcode', '-input=false', '-no-color'], 0);
      expect(r.stdout).toMatch(/No changes/);
    }
  });

  it('changing a value updates in place and moves the generation', async () => {
    const before = await readOnHost(host, 'quickstart-range');
    const plan = await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color', '-var', 'upper=7']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/~ upper\s+= 6 -> 7/);
    await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color', '-var', 'upper=7']);
    const after = await readOnHost(host, 'quickstart-range');
    expect(after.body.spec.upper).toBe(7);
    expect(after.body.metadata.generation).toBe('2');
    expect(after.body.metadata.uid).toBe(before.body.metadata.uid);
    await ws.ok(['plan', '-detailed-exitcode', '-input=false', '-no-color', '-var', 'upper=7'], 0);
  });

  it('import by SPACE/NAME adopts the Host resource and the next plan is clean', async () => {
    const onHost = await readOnHost(host, 'quickstart-range');
    await ws.ok(['state', 'rm', 'takoform_range_sequence.example']);
    const r = await ws.ok(['import', '-input=false', '-no-color', '-var', 'upper=7', 'takoform_range_sequence.example', 'demo/quickstart-range']);
    expect(r.stdout).toMatch(/Import successful/);
    const state = JSON.parse(readFileSync(path.join(ws.dir, 'terraform.tfstate'), 'utf8'));
    expect(state.resources[0].instances[0].attributes.uid).toBe(onHost.body.metadata.uid);
    await ws.ok(['plan', '-detailed-exitcode', '-input=false', '-no-color', '-var', 'upper=7'], 0);
  });

  it('a value the provider cannot send exactly is refused at plan with the attribute path', async () => {
    writeFileSync(path.join(ws.dir, 'bad.auto.tfvars'), 'upper = 1.5\n');
    const r = await ws.run(['plan', '-input=false', '-no-color']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Invalid value/);
    expect(r.stderr).toMatch(/with takoform_range_sequence\.example/);
    expect(r.stderr).toMatch(/1\.5 is not an integer/);
    writeFileSync(path.join(ws.dir, 'bad.auto.tfvars'), 'upper = 7\n');
  });

  it('an own-configuration rule the catalog knows (orderedPair) is refused offline, on the attribute, without the Host', async () => {
    writeFileSync(path.join(ws.dir, 'counter.tf'), 'resource "takoform_range_counter" "bad" {\n  name  = "bad-counter"\n  lower = 5\n  upper = 2\n}\n');
    let r;
    try {
      r = await ws.run(['validate', '-no-color']);
    } finally {
      rmSync(path.join(ws.dir, 'counter.tf'));
    }
    const text = r.stderr.replace(/\s+/g, ' ');
    expect(r.code).toBe(1);
    expect(text).toMatch(/Error: Value not allowed by the Form/);
    expect(text).toMatch(/orderedPair/);
    expect(text).toMatch(/on counter\.tf line [34], in resource "takoform_range_counter" "bad"/);
  });

  it('a Host refusal at plan names the resource, the Form, the Host code and the field', async () => {
    // A required standard-service slot this Host cannot satisfy: only the Host can decide it.
    writeFileSync(
      path.join(ws.dir, 'counter.tf'),
      'resource "takoform_range_counter" "bad" {\n  name  = "bad-counter"\n  lower = 1\n  upper = 2\n  external_services = [{ name = "QUEUE", service = { protocol = "no.such.protocol" } }]\n}\n',
    );
    let r;
    try {
      r = await ws.run(['plan', '-input=false', '-no-color']);
    } finally {
      rmSync(path.join(ws.dir, 'counter.tf'));
    }
    const text = r.stderr.replace(/\s+/g, ' '); // tofu wraps diagnostics at 78 columns
    expect(r.code).toBe(1);
    expect(text).toMatch(/Host refused: unsupported_capability/);
    expect(text).toMatch(/takoform_range_counter "bad-counter" in space "demo"/);
    expect(text).toMatch(/RangeCounter@0\.1\.0/);
    expect(text).toMatch(/request req_/);
    // The Host's pointer into the list becomes the attribute path, so core points at the line.
    expect(text).toMatch(/on counter\.tf line 5, in resource "takoform_range_counter" "bad"/);
    expect(text).not.toContain(host.token);
    const probe = await fetch(
      `${host.url}/apis/forms.takoform.com/v1/resources/resources.publisher.example/RangeCounter/bad-counter?space=demo&definitionVersion=0.1.0&schemaDigest=sha256%3A0c1f2f3fc0bc03d5a528aa286e50df3fa1a2b735da9690e6fe20c999115c9c36`,
      {
        headers: { authorization: `Bearer ${host.token}` },
      },
    );
    expect(probe.status).toBe(404);
  });

  it('TF_LOG=trace output carries provider logs but never the token', async () => {
    const r = await ws.run(['plan', '-input=false', '-no-color'], { TF_LOG: 'trace' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/terraform-provider-takoform.*(catalog loaded|provider configured)/);
    expect(r.stdout + r.stderr).not.toContain(host.token);
  });

  it('destroy removes it from the Host', async () => {
    await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
    const onHost = await readOnHost(host, 'quickstart-range');
    expect(onHost.status).toBe(404);
    expect(onHost.body.error.code).toBe('resource_not_found');
  });
});
