// takoform_artifact end to end, through real tofu and terraform against the real reference Host:
// a worker bundle from a directory of modules, a static site of a few hundred files and a
// migration set, each referenced by a bundle-shaped Form (test/fixtures/bundle-forms). The
// manifest digest is known at plan time and equals one computed here independently; a re-plan
// is clean; one changed file uploads exactly one blob (counted in the Host's request log) and
// replaces the dependent bundle; an added and a removed file plan a new manifest; destroy
// leaves the committed manifest readable; no file byte reaches state, plan files or trace logs.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BYTES_MARKER, hostLogSince, hostRequests, manifestDigestOf, migrationTree, siteTree, workerTree, writeTree } from '../support/artifact-tree.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { HostApi, type FormRefLike } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { REPO_ROOT } from '../support/paths.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';
import { SecretScanner } from '../reliability/secrets.js';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/bundle-forms');
export const BUNDLE_PACKAGES = ['worker-bundle', 'static-asset-bundle', 'sqlite-migration-set'].map((d) => path.join(FIXTURES, d));
const refOf = (dir: string): FormRefLike => JSON.parse(readFileSync(path.join(dir, 'package-index.json'), 'utf8')).formRef;
const [WORKER_REF, SITE_REF, MIGRATIONS_REF] = BUNDLE_PACKAGES.map(refOf) as [FormRefLike, FormRefLike, FormRefLike];
const APPLY = ['apply', '-auto-approve', '-input=false', '-no-color'];
const PLAN = ['plan', '-detailed-exitcode', '-input=false', '-no-color'];
const BLOB_PUT = /\/artifacts\/uploads\/[^/]+\/blobs\//;

const CONFIG = `
resource "takoform_artifact" "worker" {
  kind        = "WorkerBundle"
  source_dir  = "worker"
  exclude     = ["**/*.md"]
  main_module = "index.js"
}
resource "takoform_worker_bundle" "w" {
  name            = "worker-build"
  manifest_digest = takoform_artifact.worker.manifest_digest
}
resource "takoform_artifact" "site" {
  kind       = "StaticAssetBundle"
  source_dir = "site"
}
resource "takoform_static_asset_bundle" "s" {
  name            = "site"
  manifest_digest = takoform_artifact.site.manifest_digest
}
resource "takoform_artifact" "migrations" {
  kind  = "MigrationBundle"
  files = [
    { path = "0001_init.sql", source = "sql/0001_init.sql" },
    { path = "0002_add_name.sql", source = "sql/0002_add_name.sql" },
  ]
}
resource "takoform_sqlite_migration_set" "m" {
  name            = "schema"
  manifest_digest = takoform_artifact.migrations.manifest_digest
}
output "site_digest" { value = takoform_artifact.site.manifest_digest }
`;

const WORKER_TYPES: Record<string, string> = {
  'app.wasm': 'application/wasm',
  'index.js': 'application/javascript+module',
  'index.js.map': 'application/source-map+json',
  'lib/math.mjs': 'application/javascript+module',
  'lib/util.js': 'application/javascript+module',
};

describe.each(['tofu', 'terraform'] as const)('takoform_artifact through real %s', (cli) => {
  let host: HostProcess;
  let ws: TofuWorkspace;
  let api: HostApi;
  const siteDigest = (): string => {
    const root = path.join(ws.dir, 'site');
    const rels: string[] = [];
    const walk = (dir: string, prefix: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const rel = prefix ? `${prefix}/${e.name}` : e.name;
        if (e.isDirectory()) walk(path.join(dir, e.name), rel);
        else rels.push(rel);
      }
    };
    walk(root, '');
    rels.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const type = (p: string) => (p.endsWith('.css') ? 'text/css' : 'text/html');
    return manifestDigestOf(
      'StaticAssetBundle',
      rels.map((p) => ({ path: p, disk: path.join(root, p), mediaType: type(p) })),
    );
  };
  const workerDigest = (): string =>
    manifestDigestOf(
      'WorkerBundle',
      Object.keys(WORKER_TYPES).map((p) => ({ path: p, disk: path.join(ws.dir, 'worker', p), mediaType: WORKER_TYPES[p]! })),
      'index.js',
    );
  const migrationDigest = (): string =>
    manifestDigestOf(
      'MigrationBundle',
      ['0001_init.sql', '0002_add_name.sql'].map((p) => ({ path: p, disk: path.join(ws.dir, 'sql', p), mediaType: 'application/sql' })),
    );
  const state = (): { resources: { type: string; name: string; instances: { attributes: Record<string, unknown> }[] }[] } =>
    JSON.parse(readFileSync(path.join(ws.dir, 'terraform.tfstate'), 'utf8'));
  const attrs = (type: string, name: string) => state().resources.find((r) => r.type === type && r.name === name)!.instances[0]!.attributes;

  beforeAll(async () => {
    host = await startHostProcess(BUNDLE_PACKAGES);
    api = new HostApi(host.url, host.token);
    ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK + CONFIG }, host, 'demo', cli);
    writeTree(path.join(ws.dir, 'worker'), workerTree());
    writeTree(path.join(ws.dir, 'site'), siteTree(300));
    writeTree(ws.dir, migrationTree());
    const lock = await ws.provider(['catalog', 'lock', '--endpoint', host.url, '--space', 'demo', ...BUNDLE_PACKAGES.flatMap((p) => ['--package', p])]);
    expect(lock.code, lock.stderr).toBe(0);
    await ws.ok(['init', '-input=false', '-no-color']);
  }, 120_000);
  afterAll(async () => {
    await host?.stop();
  });

  it('knows every manifest digest at plan time, applies, and the bundles reference the committed manifests', async () => {
    await ws.ok(['plan', '-out=first.tfplan', '-input=false', '-no-color']);
    const shown = JSON.parse((await ws.ok(['show', '-json', 'first.tfplan'])).stdout);
    const planned = (address: string) => shown.planned_values.root_module.resources.find((r: { address: string }) => r.address === address).values;
    expect(planned('takoform_artifact.site').manifest_digest).toBe(siteDigest());
    expect(planned('takoform_artifact.worker').manifest_digest).toBe(workerDigest());
    expect(planned('takoform_artifact.migrations').manifest_digest).toBe(migrationDigest());
    // The dependents see the digest in the same plan, not "known after apply".
    expect(planned('takoform_static_asset_bundle.s').manifest_digest).toBe(siteDigest());
    expect(planned('takoform_artifact.site').inventory).toHaveLength(302);

    const before = host.stderr().length;
    await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color', 'first.tfplan']);
    const log = await hostLogSince(host.stderr, before);
    expect(hostRequests(log, 'PUT', BLOB_PUT)).toBe(5 + 302 + 2);
    expect((await api.read(SITE_REF, 'site')).body.spec.manifestDigest).toBe(siteDigest());
    expect((await api.read(WORKER_REF, 'worker-build')).body.spec.manifestDigest).toBe(workerDigest());
    expect((await api.read(MIGRATIONS_REF, 'schema')).body.spec.manifestDigest).toBe(migrationDigest());
    const manifest = await fetch(`${host.url}/apis/forms.takoform.com/v1/artifacts/${workerDigest()}`, { headers: { authorization: `Bearer ${host.token}` } });
    expect(await manifest.json()).toMatchObject({ kind: 'WorkerBundle', mainModule: 'index.js' });
    const inventory = attrs('takoform_artifact', 'worker').inventory as { path: string; size: number; digest: string }[];
    expect(inventory.map((e) => e.path)).toEqual(Object.keys(WORKER_TYPES));
    await ws.ok(PLAN, 0);
  });

  it('uploads exactly the one changed file, shows the new digest in the plan and replaces the dependent bundle', async () => {
    const old = siteDigest();
    writeFileSync(path.join(ws.dir, 'site/pages/page-007.html'), `<p>page 7, edited ${BYTES_MARKER}</p>\n`);
    const next = siteDigest();
    expect(next).not.toBe(old);
    const plan = await ws.run(PLAN);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain(next);
    expect(plan.stdout).toMatch(/takoform_static_asset_bundle\.s must be replaced/);
    expect(plan.stdout).toMatch(/1 to add, 1 to change, 1 to destroy/);

    const before = host.stderr().length;
    await ws.ok(APPLY);
    const log = await hostLogSince(host.stderr, before);
    expect(hostRequests(log, 'PUT', BLOB_PUT)).toBe(1);
    expect(hostRequests(log, 'POST', /\/artifacts\/uploads$/)).toBe(1);
    expect(hostRequests(log, 'POST', /\/commit$/)).toBe(1);
    expect((await api.read(SITE_REF, 'site')).body.spec.manifestDigest).toBe(next);
    expect(attrs('takoform_artifact', 'site').manifest_digest).toBe(next);
    await ws.ok(PLAN, 0);
  });

  it('plans a new manifest for an added and for a removed file', async () => {
    writeTree(path.join(ws.dir, 'site'), { 'pages/new.html': `<p>${BYTES_MARKER}</p>\n` });
    const added = await ws.run(PLAN);
    expect(added.code, added.stderr).toBe(2);
    expect(added.stdout).toContain(siteDigest());
    rmSync(path.join(ws.dir, 'site/pages/new.html'));
    rmSync(path.join(ws.dir, 'site/pages/page-299.html'));
    const removed = await ws.run(PLAN);
    expect(removed.code, removed.stderr).toBe(2);
    expect(removed.stdout).toContain(siteDigest());
    const before = host.stderr().length;
    await ws.ok(APPLY);
    expect(hostRequests(await hostLogSince(host.stderr, before), 'PUT', BLOB_PUT)).toBe(0); // every remaining blob is held
    await ws.ok(PLAN, 0);
  });

  it('never writes file bytes to state, plan files or TF_LOG=trace output', async () => {
    writeFileSync(path.join(ws.dir, 'worker/lib/util.js'), `// ${BYTES_MARKER} v2\nexport const id = (x) => x;\n`);
    const scanner = new SecretScanner([{ name: 'file bytes', value: BYTES_MARKER }]);
    const planned = await ws.run(['plan', '-out=scan.tfplan', '-input=false', '-no-color'], { TF_LOG: 'trace' });
    expect(planned.code, planned.stderr).toBe(0);
    const applied = await ws.run(['apply', '-auto-approve', '-input=false', '-no-color', 'scan.tfplan'], { TF_LOG: 'trace' });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toMatch(/artifact committed/); // the provider's trace log is in there
    const findings = [
      ...scanner.scanText('plan output', planned.stdout + planned.stderr),
      ...scanner.scanText('apply output', applied.stdout + applied.stderr),
      ...scanner.scanFile(path.join(ws.dir, 'scan.tfplan')),
      ...scanner.scanFile(path.join(ws.dir, 'terraform.tfstate')),
      ...scanner.scanFile(path.join(ws.dir, 'terraform.tfstate.backup')),
    ];
    expect(findings).toEqual([]);
  });

  it('destroys without removing the committed manifests', async () => {
    const digest = attrs('takoform_artifact', 'site').manifest_digest as string;
    await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
    const res = await fetch(`${host.url}/apis/forms.takoform.com/v1/artifacts/${digest}`, { headers: { authorization: `Bearer ${host.token}` } });
    expect(res.status).toBe(200);
  });
});
