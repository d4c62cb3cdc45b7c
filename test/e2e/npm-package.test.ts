// The npm package, as a user gets it: `npm pack` in this repository, then
// `npm install --offline <tarball>` into an empty directory (the tarball carries its only run-
// time dependency, better-sqlite3, so nothing is downloaded), then both bin entries are run from
// there: `takoform-host serve`, `terraform-provider-takoform catalog lock / install / docs /
// release`, and real tofu applying a configuration with the provider it installed.
// Then every command that README.md and docs/ print is checked against that install: the
// executable exists, the subcommand exists, `--help` works and names each flag the doc uses.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractCommands, flagsOf, markdownFiles, type DocCommand } from '../support/doc-commands.js';
import { GENERIC_FORMS, REPO_ROOT, requireFile, TERRAFORM, TOFU } from '../support/paths.js';
import { runProcess, type TofuRun } from '../support/tofu.js';

const base = mkdtempSync(path.join(tmpdir(), 'takoform-npm-'));
const app = path.join(base, 'app');
const bin = path.join(app, 'node_modules/.bin');
let env: NodeJS.ProcessEnv;
const sh = (cmd: string, args: string[], cwd = app, extra: NodeJS.ProcessEnv = {}, timeout = 180_000): Promise<TofuRun> =>
  runProcess(cmd, args, cwd, { ...env, ...extra }, timeout);
const must = async (p: Promise<TofuRun>, what: string): Promise<TofuRun> => {
  const r = await p;
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
};

beforeAll(async () => {
  requireFile(path.join(REPO_ROOT, 'dist/provider/provider.cjs'), 'run `npm run build` first');
  env = { PATH: `${bin}:${process.env.PATH}`, HOME: base, npm_config_update_notifier: 'false' };
  const packed = await must(sh('npm', ['pack', '--pack-destination', base, '--json'], REPO_ROOT), 'npm pack');
  const tarball = path.join(base, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename);
  mkdirSync(app, { recursive: true });
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'takoform-user', version: '1.0.0', private: true }));
  // HOME is the empty base: the user's npm cache is not consulted, so --offline proves the
  // tarball needs nothing from a registry. better-sqlite3 builds its addon offline (node-gyp,
  // with the headers of the running Node, which a Debian-style install keeps under /usr).
  await must(
    sh(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', tarball],
      app,
      { npm_config_cache: path.join(base, 'npm-cache'), npm_config_nodedir: process.env.npm_config_nodedir ?? path.dirname(path.dirname(process.execPath)) },
      600_000,
    ),
    'npm install',
  );
}, 660_000);

describe('the npm package', () => {
  it('has the two bin entries and needs no other package at run time', async () => {
    expect(readdirSync(bin).sort()).toEqual(['takoform-host', 'terraform-provider-takoform']);
    const pkg = JSON.parse(readFileSync(path.join(app, 'node_modules/terraform-provider-takoform/package.json'), 'utf8'));
    expect(Object.keys(pkg.dependencies)).toEqual(['better-sqlite3']);
    expect(readdirSync(path.join(app, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual(['terraform-provider-takoform']);
    const help = await must(sh('terraform-provider-takoform', ['--help']), 'help');
    for (const c of ['install', 'catalog lock', 'docs', 'cdktf', 'release']) expect(help.stdout).toContain(`  ${c} `);
    expect((await must(sh('takoform-host', ['serve', '--help']), 'host help')).stdout).toMatch(/Usage: takoform-host serve/);
  });

  describe('used from the install directory', () => {
    let host: ReturnType<typeof spawn>;
    let url = '';
    const project = path.join(base, 'project');
    beforeAll(async () => {
      writeFileSync(path.join(base, 'tokens.json'), JSON.stringify({ tokens: [{ token: 'npm-token-0123456789', tenant: 't', principal: 'p' }] }));
      host = spawn(
        path.join(bin, 'takoform-host'),
        [
          'serve',
          '--listen',
          '127.0.0.1:0',
          '--db',
          path.join(base, 'host.db'),
          '--packages',
          path.join(GENERIC_FORMS, 'range-sequence'),
          '--tokens',
          path.join(base, 'tokens.json'),
        ],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      url = await new Promise<string>((resolve, reject) => {
        host.on('exit', (code) => reject(new Error(`takoform-host exited ${code}`)));
        createInterface({ input: host.stdout! }).on('line', (l) => {
          const m = /listening on (http:\/\/\S+)/.exec(l);
          if (m) resolve(m[1]!);
        });
      });
      mkdirSync(project, { recursive: true });
      writeFileSync(path.join(project, 'main.tf'), readFileSync(path.join(REPO_ROOT, 'examples/quickstart/main.tf')));
      env = { ...env, TAKOFORM_ENDPOINT: url, TAKOFORM_TOKEN: 'npm-token-0123456789', TAKOFORM_SPACE: 'npm' };
    });
    afterAll(() => {
      host?.kill('SIGTERM');
    });

    it('catalog lock, install (the wrapper: the package carries no single executable), tofu init / apply / plan / destroy', async () => {
      expect((await must(sh('terraform-provider-takoform', ['catalog', 'lock', '--endpoint', url, '--space', 'npm'], project), 'catalog lock')).stdout).toMatch(
        /takoform_range_sequence/,
      );
      const mirror = path.join(base, 'mirror');
      expect((await must(sh('terraform-provider-takoform', ['install', '--mirror', mirror], project), 'install')).stdout).toMatch(
        /wrapper: needs node on PATH/,
      );
      writeFileSync(
        path.join(base, 'cli.tfrc'),
        `provider_installation {\n  filesystem_mirror {\n    path    = ${JSON.stringify(mirror)}\n    include = ["registry.takoform.dev/*/*"]\n  }\n}\n`,
      );
      const tf = { TF_CLI_CONFIG_FILE: path.join(base, 'cli.tfrc'), TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' };
      const tofu = (args: string[]) =>
        must(sh(requireFile(TOFU, 'run `bash scripts/install-tofu` first'), [...args, '-input=false', '-no-color'], project, tf), `tofu ${args[0]}`);
      await tofu(['init']);
      expect((await tofu(['apply', '-auto-approve'])).stdout).toMatch(/1 added/);
      expect((await tofu(['plan', '-detailed-exitcode'])).stdout).toMatch(/No changes/);
      expect((await tofu(['destroy', '-auto-approve'])).stdout).toMatch(/1 destroyed/);
    });

    it('docs and release', async () => {
      await must(sh('terraform-provider-takoform', ['docs', '--catalog', '.takoform.lock.json', '--out', 'docs'], project), 'docs');
      expect(existsSync(path.join(project, 'docs/resources/range_sequence.md'))).toBe(true);
      const r = await must(sh('terraform-provider-takoform', ['release', '--out', 'release'], project), 'release');
      expect(r.stdout).toMatch(/linux_amd64: terraform-provider-takoform_0\.2\.0_linux_amd64\.zip \(wrapper\)/);
      expect(existsSync(path.join(project, 'release/mirror/registry.takoform.dev/takoform/takoform/0.2.0.json'))).toBe(true);
    });
  });
});

describe('every command in README.md and docs/', () => {
  const commands: DocCommand[] = markdownFiles(REPO_ROOT).flatMap((f) => extractCommands(path.relative(REPO_ROOT, f), readFileSync(f, 'utf8')));
  const scripts = Object.keys(JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>);
  const helpCache = new Map<string, Promise<TofuRun>>();
  const help = (cmd: string, args: string[]) => {
    const key = [cmd, ...args].join(' ');
    if (!helpCache.has(key)) helpCache.set(key, sh(cmd, args, base));
    return helpCache.get(key)!;
  };

  it('finds the commands of the install, quickstart and reference sections', () => {
    const texts = commands.map((c) => c.text);
    expect(texts.some((t) => t.startsWith('terraform-provider-takoform catalog lock'))).toBe(true);
    expect(texts.some((t) => t.startsWith('terraform-provider-takoform install'))).toBe(true);
    expect(texts.some((t) => t.startsWith('takoform-host serve'))).toBe(true);
    expect(texts.some((t) => t.startsWith('npm install'))).toBe(true);
  });

  it('each one can be run after the documented install', async () => {
    const problems: string[] = [];
    for (const c of commands) {
      const where = `${c.file}:${c.line} \`${c.text}\``;
      const [exe, ...args] = c.argv;
      const name = path.basename(exe!);
      try {
        if (name === 'terraform-provider-takoform') {
          const sub = args[0] === 'catalog' ? ['catalog', 'lock'] : args.slice(0, 1);
          const h = await help('terraform-provider-takoform', [...sub, '--help']);
          if (h.code !== 0) problems.push(`${where}: \`${[name, ...sub].join(' ')} --help\` exited ${h.code}`);
          for (const f of flagsOf(args)) if (!h.stdout.includes(f)) problems.push(`${where}: flag ${f} is not in its --help`);
        } else if (name === 'takoform-host') {
          const h = await help('takoform-host', [args[0] ?? '', '--help']);
          if (h.code !== 0 || args[0] !== 'serve') problems.push(`${where}: takoform-host ${args[0]} is not a command`);
          for (const f of flagsOf(args)) if (!h.stdout.includes(f)) problems.push(`${where}: flag ${f} is not in its --help`);
        } else if (name === 'tofu' || name === 'terraform') {
          // `providers schema`, `state rm`, `workspace new`: the flags are the subcommand's.
          const sub = ['providers', 'state', 'workspace'].includes(args[0] ?? '') && /^[a-z]/.test(args[1] ?? '') ? args.slice(0, 2) : [args[0] ?? 'version'];
          const h = await help(name === 'tofu' ? TOFU : TERRAFORM, [...sub, '-help']);
          if (h.code !== 0) problems.push(`${where}: \`${name} ${sub.join(' ')} -help\` exited ${h.code}`);
          for (const f of flagsOf(args.slice(sub.length)))
            if (!(h.stdout + h.stderr).includes(f)) problems.push(`${where}: flag ${f} is not in \`${name} ${sub.join(' ')} -help\``);
        } else if (name === 'npm') {
          if (args[0] === 'run' && !scripts.includes(args[1] ?? '')) problems.push(`${where}: no npm script ${args[1]}`);
          else if (!['run', 'test', 'install', 'i', 'pack', 'ci'].includes(args[0] ?? '')) problems.push(`${where}: unexpected npm command`);
        } else if (name === 'bash') {
          if (!existsSync(path.join(REPO_ROOT, args[0] ?? ''))) problems.push(`${where}: ${args[0]} does not exist`);
        } else if (name === 'node') {
          if (args[0]?.startsWith('dist/')) problems.push(`${where}: a built file of a clone; use the installed command`);
        } else if (!['cd', 'export', 'echo', 'mkdir', 'cat', 'curl', 'sha256sum', 'unzip', 'git', 'kill'].includes(name)) {
          problems.push(`${where}: unknown executable ${name}`);
        }
      } catch (e) {
        problems.push(`${where}: ${(e as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
