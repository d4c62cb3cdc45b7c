// The foundation's end-to-end path, through real OpenTofu, the real plugin process (AutoMTLS,
// unix socket, handshake) and the real reference Host over HTTP: init, apply, a clean
// re-plan, an in-place update, and destroy, checking the Host's stored resource each time.
import { readFileSync, writeFileSync } from 'node:fs';
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

describe('quickstart through real tofu', () => {
  let host: HostProcess;
  let ws: TofuWorkspace;

  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence'), path.join(GENERIC_FORMS, 'range-counter')]);
    ws = createWorkspace(path.join(REPO_ROOT, 'examples/quickstart'), host);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('init installs the provider from the mirror', () => {
    const r = ws.ok(['init', '-input=false', '-no-color']);
    expect(r.stdout).toMatch(/Installed registry\.takoform\.dev\/takoform\/takoform v0\.1\.0/);
  });

  it('apply creates the resource on the Host with the default materialized', async () => {
    const r = ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
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

  it('a second plan says "No changes" (exit code 0), twice', () => {
    for (let i = 0; i < 2; i++) {
      const r = ws.ok(['plan', '-detailed-exitcode', '-input=false', '-no-color'], 0);
      expect(r.stdout).toMatch(/No changes/);
    }
  });

  it('changing a value updates in place and moves the generation', async () => {
    const before = await readOnHost(host, 'quickstart-range');
    const plan = ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color', '-var', 'upper=7']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/~ upper\s+= 6 -> 7/);
    ws.ok(['apply', '-auto-approve', '-input=false', '-no-color', '-var', 'upper=7']);
    const after = await readOnHost(host, 'quickstart-range');
    expect(after.body.spec.upper).toBe(7);
    expect(after.body.metadata.generation).toBe('2');
    expect(after.body.metadata.uid).toBe(before.body.metadata.uid);
    ws.ok(['plan', '-detailed-exitcode', '-input=false', '-no-color', '-var', 'upper=7'], 0);
  });

  it('a Host-side refusal is a diagnostic that names the resource and the Host code', () => {
    writeFileSync(path.join(ws.dir, 'bad.auto.tfvars'), 'upper = 1.5\n');
    const r = ws.run(['plan', '-input=false', '-no-color']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/takoform_range_sequence/);
    expect(r.stderr).toMatch(/invalid_argument|not an integer/);
    writeFileSync(path.join(ws.dir, 'bad.auto.tfvars'), 'upper = 7\n');
  });

  it('destroy removes it from the Host', async () => {
    ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
    const onHost = await readOnHost(host, 'quickstart-range');
    expect(onHost.status).toBe(404);
    expect(onHost.body.error.code).toBe('resource_not_found');
  });
});
