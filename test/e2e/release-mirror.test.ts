// Release artifacts, served the way a user's network mirror would serve them: `release`
// writes the Registry layout and a network mirror tree; an HTTPS static server on loopback
// (certificate from a throwaway CA trusted only through SSL_CERT_FILE) serves the tree; real
// tofu and terraform install the provider from it with a `network_mirror` block and a lock
// file written beforehand (as a user commits it), in a directory outside this repository,
// with no `node` on PATH, then apply, re-plan (No changes) and destroy against the real Host.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h1Hash, sha256Hex } from '../../src/plugin/release/hashes.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { assertNoNode, pathWithoutNode } from '../support/no-node.js';
import { CLIS, GENERIC_FORMS, PROVIDER_BUNDLE, REPO_ROOT, requireFile, SEA_EXECUTABLE } from '../support/paths.js';
import { makeTestCa, serveStatic, type StaticServer } from '../support/static-https.js';
import { runProcess } from '../support/tofu.js';

const SOURCE = 'registry.takoform.dev/takoform/takoform';
const BASE = 'terraform-provider-takoform_0.2.0';
const base = mkdtempSync(path.join(tmpdir(), 'takoform-release-'));
const out = path.join(base, 'release');
let server: StaticServer;
let host: HostProcess;
let versionDoc: { archives: Record<string, { url: string; hashes: string[] }> };

/** Unix mode of each entry, from the zip's central directory (external attributes >> 16). */
function unixModes(zip: Buffer): Map<string, number> {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const modes = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const nameLength = zip.readUInt16LE(at + 28);
    modes.set(zip.toString('utf8', at + 46, at + 46 + nameLength), zip.readUInt32LE(at + 38) >>> 16);
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return modes;
}

function lockFile(hashes: readonly string[]): string {
  return `provider "${SOURCE}" {\n  version     = "0.2.0"\n  constraints = "0.2.0"\n  hashes = [\n${[...hashes].map((h) => `    ${JSON.stringify(h)},\n`).join('')}  ]\n}\n`;
}

beforeAll(async () => {
  requireFile(SEA_EXECUTABLE, 'run `npm run build` first (it builds the single executable)');
  execFileSync(process.execPath, [PROVIDER_BUNDLE, 'release', '--out', out], { stdio: 'pipe' });
  versionDoc = JSON.parse(readFileSync(path.join(out, 'mirror', SOURCE, '0.2.0.json'), 'utf8'));
  server = await serveStatic(path.join(out, 'mirror'), makeTestCa(path.join(base, 'ca')));
  host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence')]);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await host?.stop();
});

describe('release artifacts', () => {
  it('has the Registry layout: one zip per platform, a manifest and SHA256SUMS covering them', () => {
    const files = readdirSync(path.join(out, 'registry')).sort();
    expect(files).toEqual([
      `${BASE}_SHA256SUMS`,
      `${BASE}_darwin_amd64.zip`,
      `${BASE}_darwin_arm64.zip`,
      `${BASE}_linux_amd64.zip`,
      `${BASE}_linux_arm64.zip`,
      `${BASE}_manifest.json`,
    ]);
    expect(JSON.parse(readFileSync(path.join(out, 'registry', `${BASE}_manifest.json`), 'utf8'))).toEqual({
      version: 1,
      metadata: { protocol_versions: ['6.0'] },
    });
    const sums = readFileSync(path.join(out, 'registry', `${BASE}_SHA256SUMS`), 'utf8')
      .trim()
      .split('\n');
    expect(sums).toHaveLength(5);
    for (const line of sums) {
      const [hash, name] = line.split('  ');
      expect(sha256Hex(readFileSync(path.join(out, 'registry', name!)))).toBe(hash);
    }
  });

  it('linux_amd64 holds the single executable (mode 0755), the others the wrapper; h1/zh match the files', () => {
    expect(Object.keys(versionDoc.archives).sort()).toEqual(['darwin_amd64', 'darwin_arm64', 'linux_amd64', 'linux_arm64']);
    for (const [platform, archive] of Object.entries(versionDoc.archives)) {
      const zip = readFileSync(path.join(out, 'mirror', SOURCE, archive.url));
      const entries = unzipSync(zip);
      const names = Object.keys(entries).sort();
      expect(names).toEqual(
        platform === 'linux_amd64' ? ['terraform-provider-takoform_v0.2.0'] : ['provider-main.cjs', 'provider.cjs', 'terraform-provider-takoform_v0.2.0'],
      );
      expect(archive.hashes).toEqual([h1Hash(names.map((name) => ({ name, data: entries[name]! }))), `zh:${sha256Hex(zip)}`]);
      // Without unix mode 0755 an extracted provider is not executable ("permission denied").
      expect(unixModes(zip).get('terraform-provider-takoform_v0.2.0')).toBe(0o100755);
    }
    expect(readFileSync(path.join(out, 'mirror', SOURCE, 'index.json'), 'utf8')).toContain('"0.2.0"');
  });
});

describe.each(['tofu', 'terraform'] as const)('installing from the HTTPS network mirror with %s, no node on PATH', (cli) => {
  const dir = mkdtempSync(path.join(tmpdir(), `takoform-mirror-user-${cli}-`));
  const noNodePath = pathWithoutNode();
  let env: NodeJS.ProcessEnv;
  const run = (args: string[], extra: NodeJS.ProcessEnv = {}) => runProcess(requireFile(CLIS[cli].binary, CLIS[cli].install), args, dir, { ...env, ...extra });
  const ok = async (args: string[], code = 0) => {
    const r = await run(args);
    if (r.code !== code) throw new Error(`${cli} ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r;
  };

  beforeAll(() => {
    expect(dir.startsWith(REPO_ROOT)).toBe(false);
    cpSync(path.join(REPO_ROOT, 'examples/quickstart'), dir, { recursive: true });
    const cliConfig = path.join(dir, '..', `${path.basename(dir)}.tfrc`);
    writeFileSync(
      cliConfig,
      `provider_installation {\n  network_mirror {\n    url     = "${server.url}"\n    include = ["registry.takoform.dev/*/*"]\n  }\n}\n`,
    );
    const hashes = [...new Set(Object.values(versionDoc.archives).flatMap((a) => a.hashes))].sort();
    writeFileSync(path.join(dir, '.terraform.lock.hcl'), lockFile(hashes));
    assertNoNode(noNodePath);
    env = {
      PATH: noNodePath,
      HOME: dir,
      TF_CLI_CONFIG_FILE: cliConfig,
      SSL_CERT_FILE: path.join(base, 'ca', 'ca.pem'),
      TF_IN_AUTOMATION: '1',
      CHECKPOINT_DISABLE: '1',
      TAKOFORM_ENDPOINT: host.url,
      TAKOFORM_TOKEN: host.token,
      TAKOFORM_SPACE: `mirror-${cli}`,
    };
  });

  it('init refuses a lock file whose hashes do not match the mirror', async () => {
    const good = readFileSync(path.join(dir, '.terraform.lock.hcl'), 'utf8');
    writeFileSync(path.join(dir, '.terraform.lock.hcl'), lockFile([`h1:${Buffer.alloc(32, 7).toString('base64')}`]));
    const r = await run(['init', '-input=false', '-no-color']);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/checksum|does not match/i);
    writeFileSync(path.join(dir, '.terraform.lock.hcl'), good);
  });

  it('init installs from the mirror and keeps the committed lock file', async () => {
    const before = readFileSync(path.join(dir, '.terraform.lock.hcl'), 'utf8');
    const r = await ok(['init', '-input=false', '-no-color']);
    expect(r.stdout).toMatch(/Installed registry\.takoform\.dev\/takoform\/takoform v0\.2\.0/);
    const after = readFileSync(path.join(dir, '.terraform.lock.hcl'), 'utf8');
    for (const h of before.match(/"(h1|zh):[^"]+"/g)!) expect(after).toContain(h);
    expect(server.requests.filter((q) => q.status === 200).map((q) => q.path)).toEqual(
      expect.arrayContaining([`/${SOURCE}/index.json`, `/${SOURCE}/0.2.0.json`, `/${SOURCE}/${BASE}_linux_amd64.zip`]),
    );
  });

  it('apply, a clean re-plan and destroy work with the installed single executable', async () => {
    const apply = await ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect(apply.stdout).toMatch(/1 added, 0 changed, 0 destroyed/);
    const plan = await ok(['plan', '-detailed-exitcode', '-input=false', '-no-color'], 0);
    expect(plan.stdout).toMatch(/No changes/);
    const destroy = await ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
    expect(destroy.stdout).toMatch(/1 destroyed/);
  });
});
