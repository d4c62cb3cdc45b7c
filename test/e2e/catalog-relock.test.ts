// Re-locking the catalog through the real executable against the real Host, and what the
// user sees through real tofu and terraform when the catalog is missing, lacks a type, or has
// entries without package metadata.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, REPO_ROOT } from '../support/paths.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const QUICKSTART = path.join(REPO_ROOT, 'examples/quickstart');
const flat = (s: string) => s.replace(/[│╷╵]/g, ' ').replace(/\s+/g, ' ');

describe('catalog lock against the previous lock', () => {
  let host: HostProcess;
  let shrunk: HostProcess;
  let ws: TofuWorkspace;
  let lockFile: string;
  let packages: string;
  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence'), path.join(GENERIC_FORMS, 'range-counter')]);
    shrunk = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence')]);
    ws = createWorkspace(QUICKSTART, host);
    lockFile = path.join(ws.dir, '.takoform.lock.json');
    // One folder holding both packages, as the Host's --packages takes it.
    packages = mkdtempSync(path.join(tmpdir(), 'takoform-pkgs-'));
    for (const name of ['range-sequence', 'range-counter']) cpSync(path.join(GENERIC_FORMS, name), path.join(packages, name), { recursive: true });
  });
  afterAll(async () => {
    await host?.stop();
    await shrunk?.stop();
    rmSync(packages, { recursive: true, force: true });
  });

  it('accepts a folder of packages, and --check passes on the committed lock', async () => {
    const committed = readFileSync(lockFile, 'utf8');
    const r = await ws.provider(['catalog', 'lock', '--check', '--package', packages]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/no changes/);
    expect(r.stdout).toMatch(/is current/);
    const w = await ws.provider(['catalog', 'lock', '--package', packages]);
    expect(w.code).toBe(0);
    expect(readFileSync(lockFile, 'utf8')).toBe(committed);
  });

  it('refuses to lose package metadata, naming each loss, and leaves the file unchanged', async () => {
    const before = readFileSync(lockFile, 'utf8');
    const r = await ws.provider(['catalog', 'lock']);
    expect(r.code).toBe(1);
    const err = flat(r.stderr);
    expect(err).toMatch(/catalog lock refused; \S+\.takoform\.lock\.json is unchanged/);
    expect(err).toMatch(/takoform_range_counter would lose role, immutableFields, constraints .*allow with --allow-metadata-loss/);
    expect(err).toMatch(/takoform_range_sequence would lose role/);
    expect(r.stdout).toMatch(/~ takoform_range_counter: loses role, immutableFields/);
    expect(readFileSync(lockFile, 'utf8')).toBe(before);

    const check = await ws.provider(['catalog', 'lock', '--check']);
    expect(check.code).toBe(1);
    expect(flat(check.stderr)).toMatch(/is not current: `terraform-provider-takoform catalog lock` would change it/);
    expect(readFileSync(lockFile, 'utf8')).toBe(before);
  });

  it('with --allow-metadata-loss writes the lock, prints the diff and says the metadata is missing; plan warns once per type', async () => {
    const r = await ws.provider(['catalog', 'lock', '--allow-metadata-loss']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/~ takoform_range_counter: loses role, immutableFields/);
    expect(r.stdout).toMatch(/wrote \S+\.takoform\.lock\.json/);
    expect(flat(r.stderr)).toMatch(/warning: no verified Form Package for takoform_range_counter, takoform_range_sequence/);
    const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
    expect(lock.forms.every((f: { packageVerified?: boolean; role?: string }) => f.packageVerified === undefined && f.role === undefined)).toBe(true);

    await ws.ok(['init', '-input=false', '-no-color']);
    const plan = await ws.ok(['plan', '-input=false', '-no-color']);
    const text = flat(plan.stdout + plan.stderr);
    expect(text).toMatch(/Warning: Catalog entry without a verified Form Package/);
    expect(text).toMatch(/takoform_range_sequence in \S+\.takoform\.lock\.json was locked without its Form Package/);
    expect(text.match(/Warning: Catalog entry without a verified Form Package/g)).toHaveLength(1);

    // Re-locking with the packages gains the metadata back.
    const again = await ws.provider(['catalog', 'lock', '--package', packages]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/~ takoform_range_counter: gains role, immutableFields/);
    expect(JSON.parse(readFileSync(lockFile, 'utf8')).forms[0]).toMatchObject({ typeName: 'takoform_range_counter', packageVerified: true });
  });

  it('refuses to drop a type the Host no longer offers; --allow-removals accepts and prints it', async () => {
    const before = readFileSync(lockFile, 'utf8');
    const r = await ws.provider(['catalog', 'lock', '--endpoint', shrunk.url, '--package', packages]);
    expect(r.code).toBe(1);
    const err = flat(r.stderr);
    expect(err).toMatch(
      /takoform_range_counter \(resources\.publisher\.example\/RangeCounter@0\.1\.0 \(sha256:[0-9a-f]{64}\)\) would be removed.*allow with --allow-removals/,
    );
    expect(err).not.toMatch(/takoform_range_sequence would/);
    expect(r.stdout).toMatch(/- takoform_range_counter: /);
    expect(readFileSync(lockFile, 'utf8')).toBe(before);

    const ok = await ws.provider(['catalog', 'lock', '--endpoint', shrunk.url, '--package', packages, '--allow-removals']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/- takoform_range_counter: resources\.publisher\.example\/RangeCounter@0\.1\.0/);
    expect(JSON.parse(readFileSync(lockFile, 'utf8')).forms.map((f: { typeName: string }) => f.typeName)).toEqual(['takoform_range_sequence']);
  });
});

describe.each(['tofu', 'terraform'] as const)('what %s shows about the catalog', (cli) => {
  let host: HostProcess;
  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence'), path.join(GENERIC_FORMS, 'range-counter')]);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('names the file it looked for, TAKOFORM_CATALOG and the command, when there is no catalog', async () => {
    const ws = createWorkspace(QUICKSTART, host, 'demo', cli);
    rmSync(path.join(ws.dir, '.takoform.lock.json'));
    await ws.ok(['init', '-input=false', '-no-color']);
    const r = await ws.run(['plan', '-input=false', '-no-color']);
    expect(r.code).toBe(1);
    const text = flat(r.stdout + r.stderr);
    expect(text).toMatch(
      /No Form catalog: The provider looked for \S+\/work\/\.takoform\.lock\.json \(set TAKOFORM_CATALOG to use another file\) and found none, so it has no resource type takoform_range_sequence \(main\.tf:\d+\)/,
    );
    expect(text).not.toMatch(/No Form catalog: No Form catalog/);
    expect(text).toContain(`terraform-provider-takoform catalog lock --endpoint ${host.url} --space demo --package DIR`);
  });

  it('warns at plan, once, when the type in use has no verified package', async () => {
    const ws = createWorkspace(QUICKSTART, host, 'demo', cli);
    const lockFile = path.join(ws.dir, '.takoform.lock.json');
    expect((await ws.provider(['catalog', 'lock'])).code).toBe(1); // would lose the metadata
    expect((await ws.provider(['catalog', 'lock', '--allow-metadata-loss'])).code).toBe(0);
    expect(readFileSync(lockFile, 'utf8')).not.toMatch(/packageVerified/);
    await ws.ok(['init', '-input=false', '-no-color']);
    const plan = await ws.ok(['plan', '-input=false', '-no-color']);
    const text = flat(plan.stdout + plan.stderr);
    expect(text.match(/Warning: Catalog entry without a verified Form Package/g)).toHaveLength(1);
    expect(text).toMatch(/with takoform_range_sequence\.example/);
    expect(text).toMatch(/cannot tell that a change to an immutable field needs a replacement \(the plan learns it from the Host's prepare, and warns\)/);
  });

  it('warns that there is no catalog when none is found and no typed type is used', async () => {
    const ws = createWorkspace(QUICKSTART, host, 'demo', cli);
    rmSync(path.join(ws.dir, '.takoform.lock.json'));
    const main = readFileSync(path.join(ws.dir, 'main.tf'), 'utf8');
    // Only what works without a catalog: a data source.
    writeFileSync(path.join(ws.dir, 'main.tf'), main.slice(0, main.indexOf('variable "upper"')) + 'data "takoform_forms" "all" {}\n');
    await ws.ok(['init', '-input=false', '-no-color']);
    const r = await ws.ok(['plan', '-input=false', '-no-color']);
    const text = flat(r.stdout + r.stderr);
    expect(text).toMatch(
      /Warning: No Form catalog .*looked for \S+\.takoform\.lock\.json \(set TAKOFORM_CATALOG to use another file\) .*terraform-provider-takoform catalog lock --endpoint/,
    );
  });

  it('names the missing type when the catalog lacks it', async () => {
    const ws = createWorkspace(QUICKSTART, host, 'demo', cli);
    const lockFile = path.join(ws.dir, '.takoform.lock.json');
    const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
    lock.forms = lock.forms.filter((f: { typeName: string }) => f.typeName !== 'takoform_range_sequence');
    writeFileSync(lockFile, JSON.stringify(lock, null, 2));
    await ws.ok(['init', '-input=false', '-no-color']);
    const r = await ws.run(['validate', '-no-color']);
    expect(r.code).toBe(1);
    const text = flat(r.stdout + r.stderr);
    expect(text).toMatch(/Resource type not in the Form catalog/);
    expect(text).toMatch(
      /The Form catalog \S+\.takoform\.lock\.json \(set TAKOFORM_CATALOG to use another file\) has no type takoform_range_sequence \(main\.tf:\d+\)/,
    );
    expect(text).toContain('terraform-provider-takoform catalog lock --endpoint');
  });
});
