// A create the Host committed but whose answer never arrived (connection lost after the
// commit, on every retry): the run fails with a diagnostic and the state does not have the
// resource. The next apply must resume that create — same uid, generation still 1, a
// warning saying so — instead of failing on "already exists" or creating anything twice.
// And a name taken by someone else (no create of ours journaled) is a clear error with the
// import command, never an overwrite.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultProxy } from '../support/fault-proxy.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { HostApi, RANGE_SEQUENCE_REF } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, REPO_ROOT } from '../support/paths.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const sequence = (name: string, upper = 5) =>
  `resource "takoform_range_sequence" "${name.replace(/-/g, '_')}" {\n  name  = "${name}"\n  lower = 1\n  upper = ${upper}\n}\n`;

describe.each(['tofu', 'terraform'] as const)('interrupted creates through real %s', (cli) => {
  let host: HostProcess;
  let proxy: FaultProxy;
  let ws: TofuWorkspace;
  let api: HostApi;
  const stateUid = (name: string) =>
    (
      JSON.parse(readFileSync(path.join(ws.dir, 'terraform.tfstate'), 'utf8')).resources as Array<{
        instances: Array<{ attributes: { name: string; uid: string } }>;
      }>
    )
      .flatMap((r) => r.instances)
      .find((i) => i.attributes.name === name)?.attributes.uid;

  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence')]);
    proxy = await FaultProxy.start(host.url);
    api = new HostApi(host.url, host.token);
    ws = createWorkspace(
      {
        'main.tf': PROVIDER_BLOCK + sequence('lost-answer'),
        '.takoform.lock.json': readFileSync(path.join(REPO_ROOT, 'examples/quickstart/.takoform.lock.json'), 'utf8'),
      },
      { url: proxy.url, token: host.token },
      'demo',
      cli,
    );
    await ws.ok(['init', '-input=false', '-no-color']);
  });
  afterAll(async () => {
    await proxy?.close();
    await host?.stop();
  });

  it('resumes a create whose answer was lost, with the same uid', async () => {
    // Every attempt reaches the Host and loses its answer; the retries replay the same key.
    proxy.add({ method: 'PUT', path: '/RangeSequence/lost-answer', times: 10, fault: { kind: 'reset-after' } });
    const failed = await ws.run(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect(failed.code).toBe(1);
    expect(failed.stdout + failed.stderr).toMatch(/Error: /);
    proxy.rules.length = 0;
    const onHost = await api.read(RANGE_SEQUENCE_REF, 'lost-answer');
    expect(onHost.status).toBe(200); // committed, but the state never heard of it
    expect(stateUid('lost-answer')).toBeUndefined();

    const resumed = await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect(resumed.stdout + resumed.stderr).toMatch(/Interrupted create resumed/);
    expect(stateUid('lost-answer')).toBe(onHost.body.metadata.uid);
    const after = await api.read(RANGE_SEQUENCE_REF, 'lost-answer');
    expect(after.body.metadata).toMatchObject({ uid: onHost.body.metadata.uid, generation: '1' });
    await ws.ok(['plan', '-detailed-exitcode', '-input=false', '-no-color'], 0);
  });

  it('refuses a name someone else created, naming the import command, and changes nothing', async () => {
    const foreign = await api.put(RANGE_SEQUENCE_REF, 'taken-name', { lower: 2, upper: 9 });
    // Same workspace, one more resource: a name that is already taken on the Host.
    writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + sequence('lost-answer') + sequence('taken-name', 7));
    const refused = await ws.run(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect(refused.code).toBe(1);
    const out = refused.stdout + refused.stderr;
    expect(out).toMatch(/Resource already exists on the Host/);
    expect(out).toMatch(/import\s+<address>\s+demo\/taken-name/);
    const after = await api.read(RANGE_SEQUENCE_REF, 'taken-name');
    expect(after.body.metadata).toMatchObject({ uid: foreign.metadata.uid, generation: '1' });
    expect(after.body.spec).toMatchObject({ lower: 2, upper: 9 });
    expect(stateUid('taken-name')).toBeUndefined();
  });
});
