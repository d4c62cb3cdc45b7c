// The generic escape hatch and `moved` between it and the typed resource type of the same
// exact Form, through real tofu: the Host resource is never re-created by a move.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostApi, RANGE_SEQUENCE_REF } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, QUICKSTART_LOCK } from '../support/paths.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const GENERIC = `resource "takoform_resource" "g" {
  api_version        = "resources.publisher.example"
  kind               = "RangeSequence"
  definition_version = "0.1.0"
  schema_digest      = "${RANGE_SEQUENCE_REF.schemaDigest}"
  name               = "generic-seq"
  spec               = { lower = 1, upper = 2, mode = "safe" }
}
`;
const TYPED = `resource "takoform_range_sequence" "g" {
  name  = "generic-seq"
  lower = 1
  upper = 2
}
`;

// Cross-type `moved` needs MoveResourceState: OpenTofu >= 1.10, Terraform >= 1.8.
describe.each(['tofu', 'terraform'] as const)('takoform_resource and moved blocks through %s', (cli) => {
  let host: HostProcess;
  let ws: TofuWorkspace;
  let api: HostApi;
  const tf = (body: string) => writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + body);
  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence'), path.join(GENERIC_FORMS, 'range-counter')]);
    ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK, '.takoform.lock.json': readFileSync(QUICKSTART_LOCK, 'utf8') }, host, 'demo', cli);
    api = new HostApi(host.url, host.token);
    await ws.ok(['init', '-input=false', '-no-color']);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('creates through the generic type and then plans no changes', async () => {
    tf(GENERIC);
    await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    const onHost = await api.read(RANGE_SEQUENCE_REF, 'generic-seq');
    expect(onHost.body.spec).toEqual({ lower: 1, mode: 'safe', upper: 2 });
    expect((await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color'])).code).toBe(0);
  });

  it('shows an out-of-band change as drift of spec_json and re-applies the configuration', async () => {
    const current = (await api.read(RANGE_SEQUENCE_REF, 'generic-seq')).body;
    await api.put(RANGE_SEQUENCE_REF, 'generic-seq', { lower: 1, upper: 7 }, current.metadata.generation);
    const p = await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color']);
    expect(p.code).toBe(2);
    await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect((await api.read(RANGE_SEQUENCE_REF, 'generic-seq')).body.spec.upper).toBe(2);
    expect((await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color'])).code).toBe(0);
  });

  it('moves to the typed resource type without touching the Host resource', async () => {
    const before = (await api.read(RANGE_SEQUENCE_REF, 'generic-seq')).body;
    tf(TYPED + `moved {\n  from = takoform_resource.g\n  to   = takoform_range_sequence.g\n}\n`);
    const p = await ws.run(['plan', '-input=false', '-no-color']);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toMatch(/has moved to takoform_range_sequence\.g/);
    expect(p.stdout).toMatch(/Plan: 0 to add, 0 to change, 0 to destroy/);
    await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    const after = (await api.read(RANGE_SEQUENCE_REF, 'generic-seq')).body;
    expect(after.metadata.uid).toBe(before.metadata.uid);
    expect(after.metadata.revision).toBe(before.metadata.revision);
    expect((await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color'])).code).toBe(0);
  });

  it('moves back to the generic type, then destroys', async () => {
    const before = (await api.read(RANGE_SEQUENCE_REF, 'generic-seq')).body;
    tf(GENERIC + `moved {\n  from = takoform_range_sequence.g\n  to   = takoform_resource.g\n}\n`);
    await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect((await api.read(RANGE_SEQUENCE_REF, 'generic-seq')).body.metadata.uid).toBe(before.metadata.uid);
    expect((await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color'])).code).toBe(0);
    tf('');
    await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect((await api.read(RANGE_SEQUENCE_REF, 'generic-seq')).status).toBe(404);
  });
});
