// State written by the first release (state version 0: the Host's conditions as a list of
// objects, `conditions`) read by this one (since version 1: the same conditions as one JSON
// string, `conditions_json`), through real tofu and terraform: core asks UpgradeResourceState for a
// stored instance and MoveResourceState for a moved one, and neither may plan a change, lose a
// value or touch the Host resource.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCE_STATE_VERSION } from '../../src/plugin/resource/state-upgrade.js';
import { HostApi, RANGE_SEQUENCE_REF } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, QUICKSTART_LOCK } from '../support/paths.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { instancesOf, rewriteInstances } from '../support/state-file.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const TYPED = `resource "takoform_range_sequence" "first" {
  name  = "upgrade-first"
  lower = 1
  upper = 3
}
resource "takoform_range_sequence" "second" {
  name  = "upgrade-second"
  lower = takoform_range_sequence.first.upper
  upper = takoform_range_sequence.first.upper + 4
}
output "first_ready_reason" {
  value = [for c in jsondecode(takoform_range_sequence.first.conditions_json) : c.reason if c.type == "Ready"][0]
}
output "first_messages" {
  value = [for c in jsondecode(takoform_range_sequence.first.conditions_json) : coalesce(c.message, c.hostReason, "none") if c.type == "Ready"]
}
`;
const generic = (name: string) => `resource "takoform_resource" "g" {
  api_version        = "resources.publisher.example"
  kind               = "RangeSequence"
  definition_version = "0.1.0"
  schema_digest      = "${RANGE_SEQUENCE_REF.schemaDigest}"
  name               = "${name}"
  spec               = { lower = 2, upper = 5 }
}
`;
const typedMoved = (name: string) => `resource "takoform_range_sequence" "g" {
  name  = "${name}"
  lower = 2
  upper = 5
}
moved {
  from = takoform_resource.g
  to   = takoform_range_sequence.g
}
`;

/** Rewrites every instance of ours in the state file as the first release wrote it. */
function rewriteAsVersion0(file: string): void {
  rewriteInstances(
    file,
    (type) => type.startsWith('takoform_'),
    (i) => {
      const { conditions_json: json, ...rest } = i.attributes;
      const conditions = (JSON.parse(json as string) as Record<string, string>[]).map((c) => ({
        type: c.type,
        status: c.status,
        reason: c.reason,
        message: c.message ?? null,
        host_reason: c.hostReason ?? null,
        last_transition_time: c.lastTransitionTime,
      }));
      i.schema_version = 0;
      i.attributes = { ...rest, conditions };
    },
  );
}

describe.each(['tofu', 'terraform'] as const)('state written by the first release, read through %s', (cli) => {
  let host: HostProcess;
  let ws: TofuWorkspace;
  let api: HostApi;
  const stateFile = () => path.join(ws.dir, 'terraform.tfstate');
  const tf = (body: string) => writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + body);
  const plan = () => ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color']);
  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence')]);
    ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK, '.takoform.lock.json': readFileSync(QUICKSTART_LOCK, 'utf8') }, host, 'demo', cli);
    api = new HostApi(host.url, host.token);
    await ws.ok(['init', '-input=false', '-no-color']);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('keeps the conditions as one JSON string that configurations decode', async () => {
    tf(TYPED);
    const applied = await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect(applied.stdout).toMatch(/first_ready_reason = "Available"/);
    expect(applied.stdout).toMatch(/first_messages = \[\s*"none",?\s*\]/);
    const first = instancesOf(stateFile())['takoform_range_sequence.first']!;
    expect(first.schema_version).toBe(RESOURCE_STATE_VERSION);
    expect(first.attributes.conditions).toBeUndefined();
    const onHost = (await api.read(RANGE_SEQUENCE_REF, 'upgrade-first')).body;
    // Every member present, null where the Host gives none, so that `c.message` reads in HCL.
    const withNulls = (onHost.status.conditions as Record<string, unknown>[]).map((c) => ({ message: null, hostReason: null, ...c }));
    expect(JSON.parse(first.attributes.conditions_json as string)).toEqual(withNulls);
  });

  it('upgrades version 0 instances in place: no change planned, the same conditions, the Host untouched', async () => {
    const before = instancesOf(stateFile());
    const revisions = [
      (await api.read(RANGE_SEQUENCE_REF, 'upgrade-first')).body.metadata.revision,
      (await api.read(RANGE_SEQUENCE_REF, 'upgrade-second')).body.metadata.revision,
    ];
    rewriteAsVersion0(stateFile());
    expect(instancesOf(stateFile())['takoform_range_sequence.first']!.schema_version).toBe(0);
    const p = await plan();
    expect(p.code, p.stdout + p.stderr).toBe(0);
    await ws.ok(['apply', '-refresh-only', '-auto-approve', '-input=false', '-no-color']);
    const after = instancesOf(stateFile());
    for (const address of ['takoform_range_sequence.first', 'takoform_range_sequence.second']) {
      expect(after[address]!.schema_version).toBe(RESOURCE_STATE_VERSION);
      expect(after[address]!.attributes).toEqual(before[address]!.attributes);
    }
    expect([
      (await api.read(RANGE_SEQUENCE_REF, 'upgrade-first')).body.metadata.revision,
      (await api.read(RANGE_SEQUENCE_REF, 'upgrade-second')).body.metadata.revision,
    ]).toEqual(revisions);
  });

  it('tells a configuration that still reads `conditions` which attribute it names', async () => {
    tf(TYPED + `output "old" {\n  value = takoform_range_sequence.first.conditions[0].reason\n}\n`);
    const v = await ws.run(['validate', '-no-color']);
    expect(v.code).toBe(1);
    expect(v.stderr + v.stdout).toMatch(/Unsupported attribute/);
    expect(v.stderr + v.stdout).toMatch(/conditions/);
    tf(TYPED);
  });

  it('moves a version 0 takoform_resource to the typed type and back without a change', async () => {
    tf(TYPED + generic('upgrade-moved'));
    await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    const before = (await api.read(RANGE_SEQUENCE_REF, 'upgrade-moved')).body;
    const conditionsBefore = instancesOf(stateFile())['takoform_resource.g']!.attributes.conditions_json;
    rewriteAsVersion0(stateFile());
    tf(TYPED + typedMoved('upgrade-moved'));
    const p = await ws.run(['plan', '-input=false', '-no-color']);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toMatch(/has moved to takoform_range_sequence\.g/);
    expect(p.stdout).toMatch(/No changes|Plan: 0 to add, 0 to change, 0 to destroy/);
    await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    const moved = instancesOf(stateFile())['takoform_range_sequence.g']!;
    expect(moved.schema_version).toBe(RESOURCE_STATE_VERSION);
    expect(moved.attributes.conditions_json).toBe(conditionsBefore);
    const after = (await api.read(RANGE_SEQUENCE_REF, 'upgrade-moved')).body;
    expect([after.metadata.uid, after.metadata.revision]).toEqual([before.metadata.uid, before.metadata.revision]);
    expect((await plan()).code).toBe(0);
    // And back: a version 0 typed source moved to takoform_resource.
    rewriteAsVersion0(stateFile());
    tf(TYPED + generic('upgrade-moved') + `moved {\n  from = takoform_range_sequence.g\n  to   = takoform_resource.g\n}\n`);
    await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    const back = instancesOf(stateFile())['takoform_resource.g']!;
    expect([back.schema_version, back.attributes.conditions_json]).toEqual([RESOURCE_STATE_VERSION, conditionsBefore]);
    expect((await api.read(RANGE_SEQUENCE_REF, 'upgrade-moved')).body.metadata.revision).toBe(before.metadata.revision);
    expect((await plan()).code).toBe(0);
    tf('');
    await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
  });
});
