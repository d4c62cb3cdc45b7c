// The apply-time re-plan reuses the plan's prepare answer (src/plugin/resource/lifecycle/
// prepared-bindings.ts) through real CLIs against the real Host: a create costs two Host
// requests (prepare, apply), a saved plan applied from a copy of the working directory still
// works (it prepares again, or, where core hands the planned private data to the re-plan, uses
// that), and a kept answer the Host no longer accepts or that expired is replaced by a fresh
// prepare, never applied unreviewed.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIS } from '../support/paths.js';
import { HostApi, RANGE_SEQUENCE_REF } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS } from '../support/paths.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { createWorkspace, runProcess, type TofuWorkspace } from '../support/tofu.js';

const resources = (names: string[], upper = 4) =>
  names.map((n) => `resource "takoform_range_sequence" "${n}" {\n  name  = "${n}"\n  lower = 1\n  upper = ${upper}\n}\n`).join('');

describe.each(['tofu', 'terraform'] as const)('prepare answers reused at the apply-time re-plan, through real %s', (cli) => {
  let host: HostProcess;
  let ws: TofuWorkspace;
  let api: HostApi;
  const tf = (dir: string, body: string) => writeFileSync(path.join(dir, 'main.tf'), PROVIDER_BLOCK + body);
  /** Host requests of `route` ("prepare" or "apply") logged while `step` ran. */
  const counting = async (step: () => Promise<unknown>) => {
    const before = host.stderr().length;
    await step();
    await new Promise((r) => setTimeout(r, 200)); // the Host's log is batched
    const lines = host.stderr().slice(before).split('\n');
    return {
      prepare: lines.filter((l) => /POST \S*\/resources\/prepare/.test(l)).length,
      apply: lines.filter((l) => /PUT \S*\/resources\/[^/\s]+\/[^/\s]+\/[^/\s?]+/.test(l)).length,
    };
  };
  const keptFiles = (dir: string) => {
    const root = path.join(dir, '.terraform', 'takoform', 'prepared');
    try {
      return readdirSync(root).flatMap((scope) => readdirSync(path.join(root, scope)).map((f) => path.join(root, scope, f)));
    } catch {
      return [];
    }
  };

  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence')]);
    ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK }, host, 'demo', cli);
    api = new HostApi(host.url, host.token);
    const lock = await ws.provider(['catalog', 'lock', '--package', path.join(GENERIC_FORMS, 'range-sequence')]);
    expect(lock.code, lock.stderr).toBe(0);
    await ws.ok(['init', '-input=false', '-no-color']);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('creates with one prepare and one apply per resource, and keeps nothing once applied', async () => {
    tf(ws.dir, resources([`${cli}-a`, `${cli}-b`, `${cli}-c`]));
    const n = await counting(() => ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']));
    expect(n).toEqual({ prepare: 3, apply: 3 });
    expect(keptFiles(ws.dir)).toEqual([]);
    // An update is one prepare and one apply as well (after the refresh's read).
    tf(ws.dir, resources([`${cli}-a`, `${cli}-b`, `${cli}-c`], 5));
    expect(await counting(() => ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']))).toEqual({ prepare: 3, apply: 3 });
    expect((await api.read(RANGE_SEQUENCE_REF, `${cli}-b`)).body.spec.upper).toBe(5);
  });

  it('applies a saved plan from a copy of the working directory that has no kept answers', async () => {
    tf(ws.dir, resources([`${cli}-a`, `${cli}-b`, `${cli}-c`], 5) + resources([`${cli}-saved`]));
    await ws.ok(['plan', '-input=false', '-no-color', '-out', 'saved.tfplan']);
    expect(keptFiles(ws.dir)).toHaveLength(1);
    const copy = path.join(mkdtempSync(path.join(tmpdir(), 'takoform-copy-')), 'work');
    cpSync(ws.dir, copy, { recursive: true });
    rmSync(path.join(copy, '.terraform', 'takoform'), { recursive: true, force: true });
    const n = await counting(async () => {
      const r = await runProcess(CLIS[cli].binary, ['apply', '-input=false', '-no-color', 'saved.tfplan'], copy, ws.env);
      expect(r.code, r.stdout + r.stderr).toBe(0);
    });
    // Terraform >= 1.16 hands the plan's private data to the re-plan; OpenTofu prepares again.
    expect(n.apply).toBe(1);
    expect(n.prepare).toBe(cli === 'terraform' ? 0 : 1);
    expect((await api.read(RANGE_SEQUENCE_REF, `${cli}-saved`)).status).toBe(200);
    // Back to the original directory: its state does not know the copy's create; forget it.
    const destroyed = await runProcess(
      CLIS[cli].binary,
      ['destroy', '-auto-approve', '-input=false', '-no-color', `-target=takoform_range_sequence.${cli}-saved`],
      copy,
      ws.env,
    );
    expect(destroyed.code, destroyed.stderr).toBe(0);
    rmSync(path.join(ws.dir, '.terraform', 'takoform', 'prepared'), { recursive: true, force: true });
  });

  it('prepares again when the Host refuses the kept binding, and when the kept answer expired', async () => {
    tf(ws.dir, resources([`${cli}-a`, `${cli}-b`, `${cli}-c`], 5) + resources([`${cli}-d`]));
    await ws.ok(['plan', '-input=false', '-no-color', '-out', 'refused.tfplan']);
    // Another binding than the Host minted for this create (as after its expiry on the Host).
    const [file] = keptFiles(ws.dir);
    const doc = JSON.parse(readFileSync(file!, 'utf8')) as { entries: { prepareDigest: string; expiresAt: number }[] };
    for (const e of doc.entries) e.prepareDigest = `sha256:${'0'.repeat(64)}`;
    writeFileSync(file!, JSON.stringify(doc));
    const n = await counting(() => ws.ok(['apply', '-input=false', '-no-color', 'refused.tfplan']));
    // tofu: the refused binding (sent twice: a journaled create refused under its attempt key is
    // sent once more under a fresh key, host-client sendKeyed), then a fresh prepare and the
    // create. Terraform hands the re-plan the plan's own binding, which the Host accepts.
    expect(n).toEqual(cli === 'terraform' ? { prepare: 0, apply: 1 } : { prepare: 1, apply: 3 });
    expect((await api.read(RANGE_SEQUENCE_REF, `${cli}-d`)).body.spec).toEqual({ lower: 1, mode: 'safe', upper: 4 });

    tf(ws.dir, resources([`${cli}-a`, `${cli}-b`, `${cli}-c`], 5) + resources([`${cli}-d`, `${cli}-e`]));
    await ws.ok(['plan', '-input=false', '-no-color', '-out', 'expired.tfplan']);
    const [kept] = keptFiles(ws.dir);
    const old = JSON.parse(readFileSync(kept!, 'utf8')) as { entries: { expiresAt: number }[] };
    for (const e of old.entries) e.expiresAt = Date.now() - 1;
    writeFileSync(kept!, JSON.stringify(old));
    const m = await counting(() => ws.ok(['apply', '-input=false', '-no-color', 'expired.tfplan']));
    expect(m.apply).toBe(1);
    expect(m.prepare).toBe(cli === 'terraform' ? 0 : 1);
    expect(keptFiles(ws.dir)).toEqual([]);
    await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
  });
});
