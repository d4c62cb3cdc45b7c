// An accepted (HTTP 202) change that outlives the `timeouts` wait: apply ends with a warning
// and records the Operation in state; later refreshes follow it to its end, and the state
// then tracks the one resource the Host created — never a second one.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostApi, RANGE_SEQUENCE_REF } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, QUICKSTART_LOCK } from '../support/paths.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const CONFIG = `terraform {
  required_providers {
    takoform = { source = "registry.takoform.dev/takoform/takoform", version = "0.2.0" }
  }
}
provider "takoform" {}
resource "takoform_range_sequence" "slow" {
  name  = "slow-seq"
  lower = 1
  upper = 2
  timeouts {
    create = "1s"
  }
}
`;

describe('a Host Operation that outlives the wait', () => {
  let host: HostProcess;
  let ws: TofuWorkspace;
  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence')], undefined, ['--async-form', 'RangeSequence', '--operation-pending-polls', '3']);
    ws = createWorkspace({ 'main.tf': CONFIG, '.takoform.lock.json': readFileSync(QUICKSTART_LOCK, 'utf8') }, host);
    await ws.ok(['init', '-input=false', '-no-color']);
  });
  afterAll(async () => {
    await host?.stop();
  });

  const stateAttrs = () => JSON.parse(readFileSync(path.join(ws.dir, 'terraform.tfstate'), 'utf8')).resources[0].instances[0].attributes;

  it('records the pending Operation with a warning, then follows it to the created resource', async () => {
    const applied = await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect(applied.stdout + applied.stderr).toMatch(/Host still working on the change/);
    const pending = stateAttrs();
    expect(pending.pending_operation).toMatch(/^op_/);
    expect((await new HostApi(host.url, host.token).read(RANGE_SEQUENCE_REF, 'slow-seq')).status).toBe(404);

    let attrs = pending;
    for (let i = 0; i < 6 && attrs.pending_operation; i++) {
      await ws.ok(['apply', '-refresh-only', '-auto-approve', '-input=false', '-no-color']);
      attrs = stateAttrs();
    }
    expect(attrs.pending_operation).toBeNull();
    const onHost = await new HostApi(host.url, host.token).read(RANGE_SEQUENCE_REF, 'slow-seq');
    expect(onHost.status).toBe(200);
    expect(attrs.uid).toBe(onHost.body.metadata.uid);
    expect(attrs.generation).toBe('1');
    expect((await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color'])).code).toBe(0);
  });
});
