// An accepted (HTTP 202) change that outlives the `timeouts` wait: apply ends with a warning
// and records the Operation in state; later refreshes follow it to its end, and the state
// then tracks the one resource the Host created — never a second one.
import { readFileSync, writeFileSync } from 'node:fs';
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
    let sawStillWorking = false;
    for (let i = 0; i < 6 && attrs.pending_operation; i++) {
      const refreshed = await ws.ok(['apply', '-refresh-only', '-auto-approve', '-input=false', '-no-color']);
      attrs = stateAttrs();
      // While it runs, each refresh says so (a plan would otherwise just say "No changes").
      if (attrs.pending_operation)
        sawStillWorking ||= /Host still working on the change.*has not ended yet/.test((refreshed.stdout + refreshed.stderr).replace(/\s+/g, ' '));
    }
    expect(sawStillWorking).toBe(true);
    expect(attrs.pending_operation).toBeNull();
    const onHost = await new HostApi(host.url, host.token).read(RANGE_SEQUENCE_REF, 'slow-seq');
    expect(onHost.status).toBe(200);
    expect(attrs.uid).toBe(onHost.body.metadata.uid);
    expect(attrs.generation).toBe('1');
    expect((await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color'])).code).toBe(0);
  });
});

// A change to a resource whose recorded Operation has not ended yet. Its state has no uid or
// generation yet, so the change cannot be fenced by them: the provider first sees the
// Operation through (up to the change's `timeouts`), reads what it produced, and fences the
// change by that. `-refresh=false` keeps the plan's refresh from following it first, as a
// plan made while the Operation still ran would. Before, the change went out with an empty
// generation fence and the Host refused it as invalid_argument.
describe.each(['tofu', 'terraform'] as const)('a change while the recorded Operation still runs, through real %s', (cli) => {
  let host: HostProcess;
  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence')], undefined, ['--async-form', 'RangeSequence', '--operation-pending-polls', '3']);
  });
  afterAll(async () => {
    await host?.stop();
  });

  const setUp = async (name: string, upper: number, extra = '') => {
    const ws = createWorkspace(
      {
        'main.tf': CONFIG.replace('slow-seq', name).replace('upper = 2', `upper = ${upper}`).replace('create = "1s"', `create = "1s"\n${extra}`),
        '.takoform.lock.json': readFileSync(QUICKSTART_LOCK, 'utf8'),
      },
      host,
      'demo',
      cli,
    );
    await ws.ok(['init', '-input=false', '-no-color']);
    const applied = await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect(applied.stdout + applied.stderr).toMatch(/Host still working on the change/);
    return ws;
  };
  const attrsOf = (dir: string) => {
    const state = JSON.parse(readFileSync(path.join(dir, 'terraform.tfstate'), 'utf8'));
    return state.resources.length ? state.resources[0].instances[0].attributes : undefined;
  };

  it('destroys it once the Operation has ended', async () => {
    const ws = await setUp(`${cli}-pending-destroy`, 2);
    expect(attrsOf(ws.dir).pending_operation).toMatch(/^op_/);
    await ws.ok(['destroy', '-refresh=false', '-auto-approve', '-input=false', '-no-color']);
    expect(attrsOf(ws.dir)).toBeUndefined();
    expect((await new HostApi(host.url, host.token).read(RANGE_SEQUENCE_REF, `${cli}-pending-destroy`)).status).toBe(404);
  });

  it('updates it, fenced by the generation the Operation produced', async () => {
    const ws = await setUp(`${cli}-pending-update`, 2);
    writeFileSync(path.join(ws.dir, 'main.tf'), readFileSync(path.join(ws.dir, 'main.tf'), 'utf8').replace('upper = 2', 'upper = 7'));
    await ws.ok(['apply', '-refresh=false', '-auto-approve', '-input=false', '-no-color']);
    const attrs = attrsOf(ws.dir);
    const onHost = await new HostApi(host.url, host.token).read(RANGE_SEQUENCE_REF, `${cli}-pending-update`);
    expect(onHost.body.spec.upper).toBe(7);
    expect(onHost.body.metadata.generation).toBe('2');
    expect(attrs.uid).toBe(onHost.body.metadata.uid);
    expect(attrs.generation).toBe('2');
    expect(attrs.pending_operation).toBeNull();
    expect((await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color'])).code).toBe(0);
  });

  it('refuses, keeping the state, when the Operation outlasts the wait', async () => {
    const ws = await setUp(`${cli}-pending-refused`, 2, '    delete = "1s"');
    const recorded = attrsOf(ws.dir);
    const destroyed = await ws.run(['destroy', '-refresh=false', '-auto-approve', '-input=false', '-no-color']);
    expect(destroyed.code).toBe(1);
    const text = (destroyed.stdout + destroyed.stderr).replace(/\s+/g, ' ');
    expect(text).toMatch(/Host still working on the last change/);
    expect(text).toMatch(
      new RegExp(
        `takoform_range_sequence "${cli}-pending-refused" in space "demo" cannot be deleted yet: the Host is still working on operation ${recorded.pending_operation}`,
      ),
    );
    expect(text).toMatch(/Nothing was sent and the state is kept/);
    expect(text).not.toMatch(/invalid_argument|Expected-Generation/);
    expect(attrsOf(ws.dir).pending_operation).toBe(recorded.pending_operation);
  });
});

// Ctrl-C while apply waits for a long Operation: core asks the provider to stop
// (StopProvider), and the wait ends at once with the Operation recorded in state, instead of
// running on for the whole `timeouts` value.
describe.each(['tofu', 'terraform'] as const)('an interrupt while apply waits for an Operation, through real %s', (cli) => {
  let host: HostProcess;
  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence')], undefined, [
      '--async-form',
      'RangeSequence',
      '--operation-pending-polls',
      '1000',
    ]);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('stops waiting, records the Operation and says how to see it through', async () => {
    const name = `${cli}-interrupted`;
    const ws = createWorkspace(
      { 'main.tf': CONFIG.replace('slow-seq', name).replace('create = "1s"', 'create = "30m"'), '.takoform.lock.json': readFileSync(QUICKSTART_LOCK, 'utf8') },
      host,
      'demo',
      cli,
    );
    await ws.ok(['init', '-input=false', '-no-color']);
    const started = Date.now();
    const run = await ws.run(['apply', '-auto-approve', '-input=false', '-no-color'], {}, { when: /Creating\.\.\./, afterMs: 2500 });
    const elapsedMs = Date.now() - started;
    const text = (run.stdout + run.stderr).replace(/\s+/g, ' ');
    expect(elapsedMs, text).toBeLessThan(30_000);
    expect(text).toMatch(/Host still working on the change/);
    expect(text).toMatch(/the wait was stopped \(the CLI was interrupted\)/);
    expect(text).toMatch(/Nothing is lost: run apply again to see it through/);
    const attrs = JSON.parse(readFileSync(path.join(ws.dir, 'terraform.tfstate'), 'utf8')).resources[0].instances[0].attributes;
    expect(attrs.pending_operation).toMatch(/^op_/);
  });
});
