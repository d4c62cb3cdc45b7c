// Runs the real `tofu` binary against the provider installed in a private filesystem
// mirror, with a CLI config of its own (never the user's), and no network access needed.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLIS, PROVIDER_BUNDLE, requireFile, type CliName } from './paths.js';

export interface TofuRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface TofuWorkspace {
  readonly dir: string;
  /** The filesystem mirror the provider was installed into. */
  readonly mirror: string;
  readonly env: NodeJS.ProcessEnv;
  run(args: string[], extraEnv?: NodeJS.ProcessEnv, interrupt?: Interrupt): Promise<TofuRun>;
  /** Runs the provider executable itself (e.g. `catalog lock`) in the workspace. */
  provider(args: string[]): Promise<TofuRun>;
  /** Runs and throws with the output when the exit code is not the expected one. */
  ok(args: string[], expectedCode?: number): Promise<TofuRun>;
}

/** Sends the CLI one SIGINT (a user's Ctrl-C), `afterMs` after its output first matches `when`. */
export interface Interrupt {
  readonly when: RegExp;
  readonly afterMs: number;
}

/** `example` is a folder to copy, or a map of file name → content to write. */
export function createWorkspace(
  example: string | Record<string, string>,
  host: { url: string; token: string },
  space = 'demo',
  cli: CliName = 'tofu',
): TofuWorkspace {
  const binary = requireFile(CLIS[cli].binary, CLIS[cli].install);
  requireFile(PROVIDER_BUNDLE, 'run `npm run build` first');
  const base = mkdtempSync(path.join(tmpdir(), 'takoform-e2e-'));
  const mirror = path.join(base, 'mirror');
  // The wrapper form: the suites share one Node and need no 100 MB copy per workspace; the
  // single executable has its own suites (self-contained.test.ts, release-mirror.test.ts).
  execFileSync(process.execPath, [PROVIDER_BUNDLE, 'install', '--wrapper', '--mirror', mirror], { stdio: 'pipe' });
  const dir = path.join(base, 'work');
  if (typeof example === 'string') cpSync(example, dir, { recursive: true });
  else {
    mkdirSync(dir, { recursive: true });
    for (const [name, content] of Object.entries(example)) writeFileSync(path.join(dir, name), content);
  }
  const cliConfig = path.join(base, 'tofurc');
  writeFileSync(
    cliConfig,
    `provider_installation {\n  filesystem_mirror {\n    path    = ${JSON.stringify(mirror)}\n    include = ["registry.takoform.dev/*/*"]\n  }\n  direct {\n    exclude = ["registry.takoform.dev/*/*"]\n  }\n}\n`,
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: base,
    TF_CLI_CONFIG_FILE: cliConfig,
    TF_IN_AUTOMATION: '1',
    CHECKPOINT_DISABLE: '1',
    TAKOFORM_ENDPOINT: host.url,
    TAKOFORM_TOKEN: host.token,
    TAKOFORM_SPACE: space,
  };
  // Asynchronous on purpose: a test worker blocked in spawnSync for minutes cannot answer
  // the test runner, which then reports a spurious worker timeout.
  const run = (args: string[], extraEnv: NodeJS.ProcessEnv = {}, interrupt?: Interrupt): Promise<TofuRun> =>
    runProcess(binary, args, dir, { ...env, ...extraEnv }, undefined, interrupt);
  return {
    dir,
    mirror,
    env,
    run,
    provider(args) {
      return runProcess(process.execPath, [PROVIDER_BUNDLE, ...args], dir, env);
    },
    async ok(args, expectedCode = 0) {
      const r = await run(args);
      if (r.code !== expectedCode) {
        throw new Error(`${cli} ${args.join(' ')} exited ${r.code} (expected ${expectedCode})\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
      }
      return r;
    },
  };
}

/** Runs a command to its end, collecting its output; killed after `timeoutMs`. */
export function runProcess(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 180_000, interrupt?: Interrupt): Promise<TofuRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    const watch = () => {
      if (!interrupt || interrupted || !interrupt.when.test(stdout + stderr)) return;
      interrupted = true;
      setTimeout(() => child.kill('SIGINT'), interrupt.afterMs);
    };
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      watch();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      watch();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}
