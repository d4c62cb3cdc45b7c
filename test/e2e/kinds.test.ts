// The guarantees that were once written for typed types only, run for both kinds of resource
// (a typed type and takoform_resource for the same Form) through real tofu and terraform:
// * an accepted (202) create that outlives its `timeouts` wait is recorded with its
//   Operation, followed on refresh, and ends as the one resource the Host created;
// * a destroy of a target and of a dependent that names it by a literal (so core does not
//   order them) succeeds: the target's delete waits for the dependent's;
// * a Form the Host does not offer is refused at plan by the exact availability probe.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { HostApi, RANGE_SEQUENCE_REF, type FormRefLike } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, REPO_ROOT } from '../support/paths.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const LOCK = readFileSync(path.join(REPO_ROOT, 'examples/platform/.takoform.lock.json'), 'utf8');
const refOf = (typeName: string): FormRefLike =>
  (JSON.parse(LOCK) as { forms: Array<{ typeName: string; formRef: FormRefLike }> }).forms.find((f) => f.typeName === typeName)!.formRef;
const RESERVATION_REF = refOf('takoform_counter_reservation');
const GAUGE_REF = refOf('takoform_range_gauge');
const APPLY = ['apply', '-auto-approve', '-input=false', '-no-color'];
const oneLine = (s: string) => s.replace(/\s+/g, ' ');

type Kind = 'typed' | 'generic';

/** A RangeSequence block of either kind (`extra`: more HCL inside the block). */
function sequence(kind: Kind, label: string, name: string, extra = ''): string {
  if (kind === 'typed') return `resource "takoform_range_sequence" "${label}" {\n  name  = "${name}"\n  lower = 1\n  upper = 2\n${extra}}\n`;
  return generic(label, RANGE_SEQUENCE_REF, name, '{ lower = 1, upper = 2 }', extra);
}

function reservation(kind: Kind, label: string, name: string, target: string): string {
  if (kind === 'typed') return `resource "takoform_counter_reservation" "${label}" {\n  name   = "${name}"\n  target = "${target}"\n}\n`;
  return generic(label, RESERVATION_REF, name, `{ target = { apiVersion = "${RANGE_SEQUENCE_REF.apiVersion}", kind = "RangeSequence", name = "${target}" } }`);
}

function generic(label: string, ref: FormRefLike, name: string, spec: string, extra = ''): string {
  return `resource "takoform_resource" "${label}" {\n  api_version        = "${ref.apiVersion}"\n  kind               = "${ref.kind}"\n  definition_version = "${ref.definitionVersion}"\n  schema_digest      = "${ref.schemaDigest}"\n  name               = "${name}"\n  spec               = ${spec}\n${extra}}\n`;
}

describe.each(['tofu', 'terraform'] as const)('both kinds of resource through real %s', (cli) => {
  let asyncHost: HostProcess;
  let host: HostProcess;
  beforeAll(async () => {
    // RangeSequence answers 202 with an Operation that stays pending for three polls.
    asyncHost = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence')], undefined, [
      '--async-form',
      'RangeSequence',
      '--operation-pending-polls',
      '3',
    ]);
    host = await startHostProcess(['range-sequence', 'counter-reservation'].map((d) => path.join(GENERIC_FORMS, d)));
  });
  afterAll(async () => {
    await asyncHost?.stop();
    await host?.stop();
  });

  describe.each(['typed', 'generic'] as const)('%s', (kind) => {
    const stateOf = (ws: TofuWorkspace) => JSON.parse(readFileSync(path.join(ws.dir, 'terraform.tfstate'), 'utf8')).resources[0].instances[0].attributes;
    const workspace = (main: string, via: HostProcess) => createWorkspace({ 'main.tf': PROVIDER_BLOCK + main, '.takoform.lock.json': LOCK }, via, 'demo', cli);

    it('records a 202 create that outlives its wait, follows the Operation on refresh, and tracks the one resource created', async () => {
      const name = `slow-${kind}-${cli}`;
      const ws = workspace(sequence(kind, 'slow', name, '  timeouts {\n    create = "1s"\n  }\n'), asyncHost);
      await ws.ok(['init', '-input=false', '-no-color']);
      const applied = await ws.ok(APPLY);
      expect(applied.stdout + applied.stderr).toMatch(/Host still working on the change/);
      let attrs = stateOf(ws);
      expect(attrs.pending_operation).toMatch(/^op_/);
      const api = new HostApi(asyncHost.url, asyncHost.token);
      for (let i = 0; i < 6 && attrs.pending_operation; i++) {
        await ws.ok(['apply', '-refresh-only', '-auto-approve', '-input=false', '-no-color']);
        attrs = stateOf(ws);
      }
      expect(attrs.pending_operation).toBeNull();
      const onHost = await api.read(RANGE_SEQUENCE_REF, name);
      expect(onHost.status).toBe(200);
      expect(attrs.uid).toBe(onHost.body.metadata.uid);
      expect(attrs.generation).toBe('1');
      await ws.ok(['plan', '-detailed-exitcode', '-input=false', '-no-color'], 0);
      await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
    });

    it('destroys a target and a dependent that names it by a literal in one run', async () => {
      const target = `tgt-${kind}-${cli}`;
      const ws = workspace(sequence(kind, 'target', target) + reservation(kind, 'holder', `hold-${kind}-${cli}`, target), host);
      await ws.ok(['init', '-input=false', '-no-color']);
      // The literal gives core no order, so the first apply may try the holder before its target.
      const first = await ws.run(APPLY);
      if (first.code !== 0) await ws.ok(APPLY);
      const api = new HostApi(host.url, host.token);
      expect((await api.read(RANGE_SEQUENCE_REF, target)).status).toBe(200);
      const destroyed = await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
      expect(destroyed.stdout).toMatch(/Destroy complete! Resources: 2 destroyed/);
      expect((await api.read(RANGE_SEQUENCE_REF, target)).status).toBe(404);
      expect((await api.read(RESERVATION_REF, `hold-${kind}-${cli}`)).status).toBe(404);
    });

    it('refuses at plan, naming the exact Form, when the Host does not offer it', async () => {
      // RangeGauge is in the catalog, but this Host has only RangeSequence and CounterReservation.
      const block =
        kind === 'typed'
          ? `resource "takoform_range_gauge" "g" {\n  name  = "gauge-${cli}"\n  lower = 1\n  upper = 2\n}\n`
          : generic('g', GAUGE_REF, `gauge-${cli}`, '{ lower = 1, upper = 2 }');
      const ws = workspace(block, host);
      await ws.ok(['init', '-input=false', '-no-color']);
      writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + block);
      const r = await ws.run(['plan', '-input=false', '-no-color']);
      expect(r.code).toBe(1);
      const text = oneLine(r.stderr);
      expect(text).toMatch(/Form not available on the Host/);
      expect(text).toMatch(/RangeGauge@0\.1\.0/);
      expect(text).toMatch(new RegExp(`with ${kind === 'typed' ? 'takoform_range_gauge' : 'takoform_resource'}\\.g,`));
    });
  });
});
