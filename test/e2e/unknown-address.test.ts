// A resource whose name or space comes from another resource is not known until apply: the
// plan must show it as "(known after apply)" and save, in both CLIs. Before, the planned
// resource identity (space/group/kind/name) went out with unknown values, and both CLIs
// failed to save the plan ("value is not known"; Terraform even exited 0 without a plan).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostApi, RANGE_SEQUENCE_REF } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, QUICKSTART_LOCK } from '../support/paths.js';
import { createWorkspace } from '../support/tofu.js';

const config = (prefix: string) => `terraform {
  required_providers {
    takoform = { source = "registry.takoform.dev/takoform/takoform", version = "0.2.0" }
  }
}
provider "takoform" {}
resource "terraform_data" "names" {
  input = { seq = "${prefix}-from-data", space = "later" }
}
resource "takoform_range_sequence" "named_later" {
  name  = terraform_data.names.output.seq
  lower = 1
  upper = 4
}
resource "takoform_range_sequence" "in_space_later" {
  name  = "${prefix}-in-later-space"
  space = terraform_data.names.output.space
  lower = takoform_range_sequence.named_later.lower
  upper = 5
}
`;

describe.each(['tofu', 'terraform'] as const)('a name or space known only after apply, through real %s', (cli) => {
  let host: HostProcess;
  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence')]);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('plans it as known after apply, saves the plan, applies it and re-plans clean', async () => {
    const ws = createWorkspace({ 'main.tf': config(cli), '.takoform.lock.json': readFileSync(QUICKSTART_LOCK, 'utf8') }, host, 'demo', cli);
    await ws.ok(['init', '-input=false', '-no-color']);
    const plan = await ws.run(['plan', '-out=tf.plan', '-input=false', '-no-color', '-detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout).toMatch(/Plan: 3 to add, 0 to change, 0 to destroy/);
    expect(plan.stdout).toMatch(/name\s+= \(known after apply\)/);
    expect(plan.stderr).not.toMatch(/not known|marshal/);
    const shown = await ws.ok(['show', '-json', 'tf.plan']);
    expect(JSON.parse(shown.stdout).resource_changes).toHaveLength(3);

    await ws.ok(['apply', '-input=false', '-no-color', 'tf.plan']);
    const api = new HostApi(host.url, host.token);
    expect((await api.read(RANGE_SEQUENCE_REF, `${cli}-from-data`)).status).toBe(200);
    expect((await new HostApi(host.url, host.token, 'later').read(RANGE_SEQUENCE_REF, `${cli}-in-later-space`)).status).toBe(200);
    expect((await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color'])).code).toBe(0);
    await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
    expect((await api.read(RANGE_SEQUENCE_REF, `${cli}-from-data`)).status).toBe(404);
  });
});
