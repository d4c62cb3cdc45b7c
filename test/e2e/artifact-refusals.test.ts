// takoform_artifact refusals through real tofu and terraform. Every file-level rule of the
// manifest (§14.1) is decided offline, at plan, naming the file (bundle path and disk path) and
// the rule — and nothing is uploaded. The Host's own resolution of an artifact reference is
// shown too: a bundle naming a digest nobody committed is artifact_missing, one naming a
// manifest of the wrong kind is artifact_invalid, both at apply and before anything changes.
import { closeSync, openSync, ftruncateSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostLogSince, hostRequests, workerTree, writeTree } from '../support/artifact-tree.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { HostApi, type FormRefLike } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { REPO_ROOT } from '../support/paths.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';
import { readFileSync, writeFileSync } from 'node:fs';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/bundle-forms');
const PACKAGES = ['worker-bundle', 'static-asset-bundle', 'sqlite-migration-set'].map((d) => path.join(FIXTURES, d));
const WORKER_REF: FormRefLike = JSON.parse(readFileSync(path.join(PACKAGES[0]!, 'package-index.json'), 'utf8')).formRef;
const PLAN = ['plan', '-input=false', '-no-color'];
const APPLY = ['apply', '-auto-approve', '-input=false', '-no-color'];

/** Core wraps long lines; the checks read the diagnostic text as one line. */
const flat = (text: string): string => text.replace(/\s+/g, ' ');

const CASES: { name: string; hcl: string; expect: RegExp[] }[] = [
  {
    name: 'a file over the size limit',
    hcl: `resource "takoform_artifact" "a" {\n  kind       = "StaticAssetBundle"\n  source_dir = "big"\n}\n`,
    expect: [/Artifact file too large/, /file "huge\.bin" \(on disk \S+\/big\/huge\.bin\) is 268435457 bytes/, /rule: size/, /Host code: artifact_invalid/],
  },
  {
    name: 'a media type outside the kind policy',
    hcl: `resource "takoform_artifact" "a" {\n  kind        = "WorkerBundle"\n  source_dir  = "worker"\n  main_module = "index.js"\n}\n`,
    expect: [
      /Artifact media type refused/,
      /file "config\.json" \(on disk \S+\/worker\/config\.json\): media type application\/json is outside the WorkerBundle policy/,
      /rule: media type/,
    ],
  },
  {
    name: 'a path the manifest grammar forbids',
    hcl: `resource "takoform_artifact" "a" {\n  kind  = "StaticAssetBundle"\n  files = [{ path = "../escape.html", source = "site/ok.html" }]\n}\n`,
    expect: [/Artifact path forbidden/, /file "\.\.\/escape\.html" \(on disk \S+\/site\/ok\.html\)/, /\.\. segment/, /rule: path/],
  },
  {
    name: 'a missing main module',
    hcl: `resource "takoform_artifact" "a" {\n  kind        = "WorkerBundle"\n  source_dir  = "worker"\n  exclude     = ["*.json"]\n  main_module = "main.js"\n}\n`,
    expect: [/Artifact main module missing/, /main_module "main\.js" is not a file of the bundle/, /rule: main module/],
  },
  {
    name: 'a migration that is not SQL',
    hcl: `resource "takoform_artifact" "a" {\n  kind  = "MigrationBundle"\n  files = [{ path = "0001.txt", source = "site/ok.html" }]\n}\n`,
    expect: [/Artifact media type refused/, /file "0001\.txt" \(on disk \S+\/site\/ok\.html\)/, /a MigrationBundle file must be application\/sql/],
  },
];

describe.each(['tofu', 'terraform'] as const)('takoform_artifact refusals through real %s', (cli) => {
  let host: HostProcess;
  let ws: TofuWorkspace;
  beforeAll(async () => {
    host = await startHostProcess(PACKAGES);
    ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK }, host, 'demo', cli);
    writeTree(path.join(ws.dir, 'worker'), { ...workerTree(), 'config.json': '{}' });
    writeTree(path.join(ws.dir, 'site'), { 'ok.html': '<p>ok</p>' });
    writeTree(path.join(ws.dir, 'big'), { 'huge.bin': '' });
    // A sparse file one byte over the limit: no disk space, and the provider never reads it.
    const fd = openSync(path.join(ws.dir, 'big/huge.bin'), 'r+');
    ftruncateSync(fd, 268_435_457);
    closeSync(fd);
    const lock = await ws.provider(['catalog', 'lock', '--endpoint', host.url, '--space', 'demo', ...PACKAGES.flatMap((p) => ['--package', p])]);
    expect(lock.code, lock.stderr).toBe(0);
    await ws.ok(['init', '-input=false', '-no-color']);
  }, 120_000);
  afterAll(async () => {
    await host?.stop();
  });

  it.each(CASES)('refuses $name at plan, naming the file and the rule, with no upload', async ({ hcl, expect: patterns }) => {
    writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + hcl);
    const mark = host.stderr().length;
    const r = await ws.run(PLAN);
    expect(r.code).toBe(1);
    const text = flat(r.stderr);
    for (const p of patterns) expect(text).toMatch(p);
    expect(text).toMatch(/with takoform_artifact\.a/);
    expect(hostRequests(await hostLogSince(host.stderr, mark), 'POST', /\/artifacts\/uploads$/)).toBe(0);
  });

  it('a bundle naming an uncommitted digest is artifact_missing, one naming another kind is artifact_invalid, nothing created', async () => {
    writeFileSync(
      path.join(ws.dir, 'main.tf'),
      PROVIDER_BLOCK + `resource "takoform_worker_bundle" "w" {\n  name            = "never-uploaded"\n  manifest_digest = "sha256:${'0'.repeat(64)}"\n}\n`,
    );
    const missing = await ws.run(APPLY);
    expect(missing.code).toBe(1);
    expect(flat(missing.stderr)).toMatch(/Host refused: artifact_missing/);
    expect(flat(missing.stderr)).toMatch(/Attribute: manifest_digest/);
    expect((await new HostApi(host.url, host.token).read(WORKER_REF, 'never-uploaded')).status).toBe(404);

    writeFileSync(
      path.join(ws.dir, 'main.tf'),
      PROVIDER_BLOCK +
        `resource "takoform_artifact" "site" {\n  kind  = "StaticAssetBundle"\n  files = [{ path = "ok.html", source = "site/ok.html" }]\n}\n` +
        `resource "takoform_worker_bundle" "w" {\n  name            = "wrong-kind"\n  manifest_digest = takoform_artifact.site.manifest_digest\n}\n`,
    );
    const wrong = await ws.run(APPLY);
    expect(wrong.code).toBe(1);
    expect(flat(wrong.stderr)).toMatch(/Host refused: artifact_invalid/);
    expect(flat(wrong.stderr)).toMatch(/is a StaticAssetBundle; a WorkerBundle needs a WorkerBundle/);
    expect((await new HostApi(host.url, host.token).read(WORKER_REF, 'wrong-kind')).status).toBe(404);
    await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
  });
});
