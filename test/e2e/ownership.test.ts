// One owner per Host resource. A create may only ever adopt what this very attempt created:
// never a resource that another block, state, workspace or working directory created — even
// with the same name and the same spec, sent by the same principal, when the Host would replay
// a byte-identical request. Each case is one that shared a uid before per-attempt keys:
// 1. two blocks (and two `count` instances) of one configuration with one name;
// 2. two states in two directories applying the same configuration at the same moment;
// 3. a second workspace of the same directory (with and without an interrupted create);
// 4. the same directory after `state rm`;
// 5. names and SpaceIDs the Host refuses, which `validate` must refuse offline.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultProxy } from '../support/fault-proxy.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { HostApi, RANGE_SEQUENCE_REF } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, QUICKSTART_LOCK } from '../support/paths.js';
import { createWorkspace, type TofuRun, type TofuWorkspace } from '../support/tofu.js';

const APPLY = ['apply', '-auto-approve', '-input=false', '-no-color'];
const LOCK = readFileSync(QUICKSTART_LOCK, 'utf8');
const seq = (label: string, name: string, extra = '') =>
  `resource "takoform_range_sequence" "${label}" {\n  name  = "${name}"\n  lower = 1\n  upper = 4\n${extra}}\n`;
const out = (r: TofuRun) => r.stdout + r.stderr;
const oneLine = (text: string) => text.replace(/\s+/g, ' ');
const errorCount = (r: TofuRun, summary: string) => out(r).split(`Error: ${summary}`).length - 1;

/** Managed instances of a state, by Terraform address: [name, uid]. */
async function stateInstances(ws: TofuWorkspace): Promise<Map<string, { name: string; uid: string }>> {
  const pulled = await ws.run(['state', 'pull']);
  const doc = pulled.stdout.trim()
    ? (JSON.parse(pulled.stdout) as {
        resources?: Array<{
          mode: string;
          type: string;
          name: string;
          instances: Array<{ index_key?: number | string; attributes: { name: string; uid: string } }>;
        }>;
      })
    : {};
  const found = new Map<string, { name: string; uid: string }>();
  for (const r of doc.resources ?? []) {
    if (r.mode !== 'managed') continue;
    for (const i of r.instances)
      found.set(`${r.type}.${r.name}${i.index_key === undefined ? '' : `[${JSON.stringify(i.index_key)}]`}`, {
        name: i.attributes.name,
        uid: i.attributes.uid,
      });
  }
  return found;
}

describe.each(['tofu', 'terraform'] as const)('one owner per Host resource through real %s', (cli) => {
  let host: HostProcess;
  let proxy: FaultProxy;
  let api: HostApi;
  const dirs: TofuWorkspace[] = [];
  const workspace = (main: string, via: 'host' | 'proxy' = 'host'): TofuWorkspace => {
    const ws = createWorkspace(
      { 'main.tf': PROVIDER_BLOCK + main, '.takoform.lock.json': LOCK },
      { url: via === 'host' ? host.url : proxy.url, token: host.token },
      'demo',
      cli,
    );
    dirs.push(ws);
    return ws;
  };
  const uidOnHost = async (name: string): Promise<string | undefined> => {
    const r = await api.read(RANGE_SEQUENCE_REF, name);
    return r.status === 200 ? (r.body.metadata.uid as string) : undefined;
  };

  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence')]);
    proxy = await FaultProxy.start(host.url);
    api = new HostApi(host.url, host.token);
  });
  afterAll(async () => {
    await proxy?.close();
    await host?.stop();
  });

  it('1. two blocks and two count instances with one name: one owner each, the others refused with the import id', async () => {
    const ws = workspace(seq('first', `${cli}-twin`) + seq('second', `${cli}-twin`) + seq('counted', `${cli}-counted`, '  count = 2\n'));
    await ws.ok(['init', '-input=false', '-no-color']);
    const run = await ws.run(APPLY);
    expect(run.code).toBe(1);
    expect(errorCount(run, 'Resource already exists on the Host')).toBe(2);
    expect(out(run)).not.toMatch(/Interrupted create resumed/);
    const text = out(run).replace(/\s+/g, ' ');
    expect(text).toMatch(new RegExp(`with takoform_range_sequence\\.(first|second),`));
    expect(text).toMatch(new RegExp(`with takoform_range_sequence\\.counted\\[[01]\\],`));
    expect(text).toMatch(new RegExp(`id = "demo/${cli}-twin"`));
    const state = await stateInstances(ws);
    for (const [name, addresses] of [
      [`${cli}-twin`, ['takoform_range_sequence.first', 'takoform_range_sequence.second']],
      [`${cli}-counted`, ['takoform_range_sequence.counted[0]', 'takoform_range_sequence.counted[1]']],
    ] as const) {
      const uid = await uidOnHost(name);
      expect(uid).toBeDefined();
      const owners = addresses.filter((a) => state.get(a)?.uid === uid);
      expect(owners, `owners of ${name}`).toHaveLength(1);
      expect(
        addresses.filter((a) => state.has(a)),
        `state entries for ${name}`,
      ).toHaveLength(1);
    }
    // Destroying the owner deletes the one resource; nothing is left behind or shared.
    await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
    expect(await uidOnHost(`${cli}-twin`)).toBeUndefined();
  });

  it('2. two states applying the same name and spec at the same moment: exactly one owner, every round', async () => {
    const rounds = 3;
    const a = workspace('');
    const b = workspace('');
    await Promise.all([a.ok(['init', '-input=false', '-no-color']), b.ok(['init', '-input=false', '-no-color'])]);
    for (let round = 0; round < rounds; round++) {
      const name = `${cli}-shared-${round}`;
      for (const ws of [a, b]) writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + seq('shared', name));
      const [ra, rb] = await Promise.all([a.run(APPLY), b.run(APPLY)]);
      const uid = await uidOnHost(name);
      expect(uid, `round ${round}: the Host holds ${name}`).toBeDefined();
      const sa = (await stateInstances(a)).get('takoform_range_sequence.shared');
      const sb = (await stateInstances(b)).get('takoform_range_sequence.shared');
      const owners = [sa, sb].filter((s) => s?.uid === uid);
      expect(owners, `round ${round}: states owning ${name} (a exit ${ra.code}, b exit ${rb.code})`).toHaveLength(1);
      const loser = sa?.uid === uid ? { ws: b, run: rb, state: sb } : { ws: a, run: ra, state: sa };
      expect(loser.state).toBeUndefined();
      expect(loser.run.code).toBe(1);
      expect(out(loser.run)).toMatch(/Resource already exists on the Host/);
      // The loser's destroy cannot touch the winner's resource.
      await loser.ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
      expect(await uidOnHost(name)).toBe(uid);
    }
  });

  it('3. another workspace of the same directory never takes over, even where an interrupted create is journaled', async () => {
    const ws = workspace(seq('w', `${cli}-ws`) + seq('lost', `${cli}-ws-lost`), 'proxy');
    await ws.ok(['init', '-input=false', '-no-color']);
    // In `default`: one create succeeds, the other's answer is lost on every retry.
    proxy.add({ method: 'PUT', path: `/RangeSequence/${cli}-ws-lost`, times: 10, fault: { kind: 'reset-after' } });
    const first = await ws.run(APPLY);
    proxy.rules.length = 0;
    expect(first.code).toBe(1);
    const uid = await uidOnHost(`${cli}-ws`);
    const lostUid = await uidOnHost(`${cli}-ws-lost`);
    expect(uid).toBeDefined();
    expect(lostUid).toBeDefined(); // committed on the Host, never recorded
    expect((await stateInstances(ws)).get('takoform_range_sequence.lost')).toBeUndefined();

    // Workspace b: same configuration, empty state. Both names are someone else's.
    await ws.ok(['workspace', 'new', 'b']);
    // The plan already says so: the names are on the Host, held by nothing this state plans.
    const planB = oneLine(out(await ws.ok(['plan', '-input=false', '-no-color'])));
    expect(planB).toMatch(/Warning: Name already taken on the Host/);
    expect(planB).toMatch(new RegExp(`"${cli}-ws" in space "demo" is already on the Host \\(uid ${uid}, generation 1\\)`));
    const inB = await ws.run(APPLY);
    expect(inB.code).toBe(1);
    expect(errorCount(inB, 'Resource already exists on the Host')).toBe(2);
    expect(out(inB)).not.toMatch(/Interrupted create resumed/);
    expect((await stateInstances(ws)).size).toBe(0);
    // Destroying b deletes nothing of default's.
    await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
    expect(await uidOnHost(`${cli}-ws`)).toBe(uid);
    expect(await uidOnHost(`${cli}-ws-lost`)).toBe(lostUid);

    // Back in default: the interrupted create is resumed there, and only there.
    await ws.ok(['workspace', 'select', 'default']);
    const resumed = await ws.ok(APPLY);
    expect(out(resumed)).toMatch(/Interrupted create resumed/);
    expect(out(resumed)).not.toMatch(/Name already taken on the Host/);
    const state = await stateInstances(ws);
    expect(state.get('takoform_range_sequence.w')?.uid).toBe(uid);
    expect(state.get('takoform_range_sequence.lost')?.uid).toBe(lostUid);
    await ws.ok(['plan', '-detailed-exitcode', '-input=false', '-no-color'], 0);
    await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
  });

  it('4. after `state rm`, the next apply is refused with the import id, not "resumed"', async () => {
    const ws = workspace(seq('kept', `${cli}-removed`));
    await ws.ok(['init', '-input=false', '-no-color']);
    await ws.ok(APPLY);
    const uid = await uidOnHost(`${cli}-removed`);
    // Straight after the apply (no refresh in between), and again after a plan.
    for (const between of [[], ['plan', '-input=false', '-no-color']]) {
      if (between.length) {
        await ws.ok(['import', '-input=false', '-no-color', 'takoform_range_sequence.kept', `demo/${cli}-removed`]);
        await ws.ok(between);
      }
      await ws.ok(['state', 'rm', 'takoform_range_sequence.kept']);
      const again = await ws.run(APPLY);
      expect(again.code).toBe(1);
      expect(out(again)).toMatch(/Resource already exists on the Host/);
      expect(out(again)).toMatch(/Warning: Name already taken on the Host/);
      expect(out(again)).toMatch(new RegExp(`import\\s+<address>\\s+demo/${cli}-removed`));
      expect(out(again)).not.toMatch(/Interrupted create resumed/);
      expect(await uidOnHost(`${cli}-removed`)).toBe(uid);
      expect((await stateInstances(ws)).size).toBe(0);
    }
  });

  it('5. names and SpaceIDs the Host refuses are refused by validate, on the attribute, offline', async () => {
    const bad = [
      ['upper', 'Bad-Name', 'demo', /upper-case letters/],
      ['long', 'a'.repeat(64), 'demo', /64 characters; at most 63/],
      ['accent', 'na\\u00efve', 'demo', /contains "ï"/],
      ['dash', 'trailing-', 'demo', /must end with a lower-case letter or a digit/],
      ['lead_ws', 'ok-name', '\\u00a0demo', /starts or ends with white space/],
      ['trail_ws', 'ok-name', 'demo\\u3000', /starts or ends with white space/],
      ['slash', 'ok-name', 'a/b', /contains "\/"/],
      ['empty', 'ok-name', '', /it is empty/],
      ['huge', 'ok-name', 'x'.repeat(256), /256 code points; at most 255/],
      ['control', 'ok-name', 'de\\u0007mo', /control character U\+0007/],
    ] as const;
    const blocks = bad
      .map(
        ([label, name, space]) => `resource "takoform_range_sequence" "${label}" {\n  name  = "${name}"\n  space = "${space}"\n  lower = 1\n  upper = 2\n}\n`,
      )
      .join('');
    const generic = `resource "takoform_resource" "g" {\n  api_version        = "resources.publisher.example"\n  kind               = "RangeSequence"\n  definition_version = "0.1.0"\n  schema_digest      = "${RANGE_SEQUENCE_REF.schemaDigest}"\n  name               = "Generic"\n  spec               = { lower = 1, upper = 2 }\n}\n`;
    const data = `data "takoform_resource" "d" {\n  api_version        = "resources.publisher.example"\n  kind               = "RangeSequence"\n  definition_version = "0.1.0"\n  schema_digest      = "${RANGE_SEQUENCE_REF.schemaDigest}"\n  name               = "data_name"\n}\n`;
    const ws = workspace(blocks + generic + data, 'proxy');
    await ws.ok(['init', '-input=false', '-no-color']);
    const before = proxy.seen.length;
    const run = await ws.run(['validate', '-no-color']);
    expect(run.code).toBe(1);
    const text = out(run).replace(/\s+/g, ' ');
    for (const [label, , , reason] of bad) {
      const summary = label === 'upper' || label === 'long' || label === 'accent' || label === 'dash' ? 'Invalid resource name' : 'Invalid space';
      expect(text).toMatch(new RegExp(`Error: ${summary} (on main\\.tf line \\d+, in resource "takoform_range_sequence" "${label}": )?`));
      expect(text, label).toMatch(reason);
    }
    expect(errorCount(run, 'Invalid resource name')).toBe(4 + 2); // + the generic type and the data source
    expect(errorCount(run, 'Invalid space')).toBe(6);
    // Each diagnostic points at its attribute line (core prints the source line).
    expect(out(run)).toMatch(/name\s+= "Bad-Name"/);
    expect(out(run)).toMatch(/space = "a\/b"/);
    expect(proxy.seen.length).toBe(before); // nothing reached the Host
  });
});
