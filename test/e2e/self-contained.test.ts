// The single executable (Node embedded, built by `npm run build` for this platform): `install`
// puts it into the plugin mirror, and real tofu and terraform run init / apply / a clean
// re-plan / destroy with a PATH that holds no `node` at all. The wrapper, under the same PATH,
// must fail: that is what shows the PATH really has no Node.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { assertNoNode, pathWithoutNode } from '../support/no-node.js';
import { CLIS, GENERIC_FORMS, PROVIDER_BUNDLE, REPO_ROOT, requireFile, SEA_EXECUTABLE } from '../support/paths.js';
import { runProcess } from '../support/tofu.js';

const PLATFORM = `${process.platform}_${process.arch === 'x64' ? 'amd64' : process.arch}`;
const PACKAGE = path.join('registry.takoform.dev/takoform/takoform/0.2.0', PLATFORM);
let host: HostProcess;

beforeAll(async () => {
  requireFile(SEA_EXECUTABLE, 'run `npm run build` first (it builds the single executable)');
  host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence')]);
});
afterAll(async () => {
  await host?.stop();
});

function workspace(cli: keyof typeof CLIS, installer: string[], installFlags: string[] = []) {
  const base = mkdtempSync(path.join(tmpdir(), `takoform-sea-${cli}-`));
  const mirror = path.join(base, 'mirror');
  execFileSync(installer[0]!, [...installer.slice(1), 'install', ...installFlags, '--mirror', mirror], { stdio: 'pipe', env: { PATH: pathWithoutNode() } });
  const dir = path.join(base, 'work');
  cpSync(path.join(REPO_ROOT, 'examples/quickstart'), dir, { recursive: true });
  writeFileSync(
    path.join(base, 'cli.tfrc'),
    `provider_installation {\n  filesystem_mirror {\n    path    = ${JSON.stringify(mirror)}\n    include = ["registry.takoform.dev/*/*"]\n  }\n}\n`,
  );
  const noNode = pathWithoutNode();
  assertNoNode(noNode);
  const env = {
    PATH: noNode,
    HOME: base,
    TF_CLI_CONFIG_FILE: path.join(base, 'cli.tfrc'),
    TF_IN_AUTOMATION: '1',
    CHECKPOINT_DISABLE: '1',
    TAKOFORM_SPACE: `sea-${cli}`,
  };
  const run = (args: string[]) =>
    runProcess(requireFile(CLIS[cli].binary, CLIS[cli].install), args, dir, { ...env, TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: host.token });
  return { mirror, dir, run };
}

describe('install', () => {
  it('the single executable installs itself, with no node on PATH', () => {
    const { mirror } = workspace('tofu', [SEA_EXECUTABLE]);
    const dir = path.join(mirror, PACKAGE);
    expect(readdirSync(dir)).toEqual(['terraform-provider-takoform_v0.2.0']);
    expect(statSync(path.join(dir, 'terraform-provider-takoform_v0.2.0')).size).toBe(statSync(SEA_EXECUTABLE).size);
    expect(statSync(path.join(dir, 'terraform-provider-takoform_v0.2.0')).mode & 0o111).not.toBe(0);
  });

  it.runIf(process.platform === 'linux')('the single executable is stripped of its symbol table, and keeps the dynamic one', () => {
    // Core hashes every byte of the installed package for the lock file on every command
    // (scripts/build-sea.mjs); the build strips what running never reads.
    const sections = execFileSync('readelf', ['-S', '-W', SEA_EXECUTABLE]).toString();
    expect(sections).not.toMatch(/\s\.symtab\s/);
    expect(sections).not.toMatch(/\s\.debug_info\s/);
    expect(sections).toMatch(/\s\.dynsym\s/);
  });

  it('the single executable writes a release of its own platform, with no node on PATH', () => {
    const out = mkdtempSync(path.join(tmpdir(), 'takoform-sea-release-'));
    const text = execFileSync(SEA_EXECUTABLE, ['release', '--out', out], { env: { PATH: pathWithoutNode() } }).toString();
    expect(text).toMatch(new RegExp(`${PLATFORM}: terraform-provider-takoform_0\\.2\\.0_${PLATFORM}\\.zip \\(single executable\\)`));
    expect(readdirSync(path.join(out, 'registry')).sort()).toEqual(
      [
        'terraform-provider-takoform_0.2.0_SHA256SUMS',
        'terraform-provider-takoform_0.2.0_manifest.json',
        `terraform-provider-takoform_0.2.0_${PLATFORM}.zip`,
      ].sort(),
    );
  });

  it('the bundle installs the single executable built for this platform, and the wrapper with --wrapper', () => {
    const a = mkdtempSync(path.join(tmpdir(), 'takoform-install-'));
    const out = execFileSync(process.execPath, [PROVIDER_BUNDLE, 'install', '--mirror', a]).toString();
    expect(out).toMatch(/single executable/);
    expect(readdirSync(path.join(a, PACKAGE))).toEqual(['terraform-provider-takoform_v0.2.0']);
    const b = mkdtempSync(path.join(tmpdir(), 'takoform-install-'));
    expect(execFileSync(process.execPath, [PROVIDER_BUNDLE, 'install', '--wrapper', '--mirror', b]).toString()).toMatch(/wrapper: needs node on PATH/);
    expect(readdirSync(path.join(b, PACKAGE)).sort()).toEqual([
      'provider-main.cache',
      'provider-main.cjs',
      'provider.cjs',
      'terraform-provider-takoform_v0.2.0',
    ]);
  });
});

describe.each(['tofu', 'terraform'] as const)('%s runs the single executable with no node on PATH', (cli) => {
  let ws: ReturnType<typeof workspace>;
  beforeAll(() => {
    ws = workspace(cli, [SEA_EXECUTABLE]);
  });
  const ok = async (args: string[], code = 0) => {
    const r = await ws.run(args);
    if (r.code !== code) throw new Error(`${cli} ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r;
  };

  it('init, apply, a clean re-plan and destroy', async () => {
    expect((await ok(['init', '-input=false', '-no-color'])).stdout).toMatch(/Installed registry\.takoform\.dev\/takoform\/takoform v0\.2\.0/);
    expect((await ok(['apply', '-auto-approve', '-input=false', '-no-color'])).stdout).toMatch(/1 added, 0 changed, 0 destroyed/);
    expect((await ok(['plan', '-detailed-exitcode', '-input=false', '-no-color'], 0)).stdout).toMatch(/No changes/);
    expect((await ok(['destroy', '-auto-approve', '-input=false', '-no-color'])).stdout).toMatch(/1 destroyed/);
  });
});

describe('the wrapper under the same PATH', () => {
  it('cannot start: the PATH really holds no node', async () => {
    const ws = workspace('tofu', [process.execPath, PROVIDER_BUNDLE], ['--wrapper']);
    await ws.run(['init', '-input=false', '-no-color']);
    const r = await ws.run(['plan', '-input=false', '-no-color']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/Failed to read any lines from plugin's stdout|node: not found/);
  });
});
