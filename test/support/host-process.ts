// Starts the real reference Host executable on a loopback port with a temporary database,
// the way a user would, and reads the address it prints.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { HOST_BUNDLE, requireFile } from './paths.js';

export interface HostProcess {
  readonly url: string;
  readonly token: string;
  readonly dir: string;
  readonly child: ChildProcess;
  /** Everything the Host wrote to stderr so far (its log: one line per request). */
  stderr(): string;
  stop(): Promise<void>;
}

/** One more entry of the Host's tokens file (another principal, possibly another tenant). */
export interface ExtraToken {
  readonly token: string;
  readonly tenant: string;
  readonly principal: string;
}

export const TEST_TOKEN = 'e2e-token-tenant-a-0123456789';

export async function startHostProcess(
  packageDirs: string[],
  dir = mkdtempSync(path.join(tmpdir(), 'takoform-host-')),
  extraArgs: string[] = [],
  extraTokens: readonly ExtraToken[] = [],
  /** The --db value: a SQLite file in `dir` unless given (e.g. a postgres:// URL shared by several Hosts). */
  db = path.join(dir, 'host.db'),
): Promise<HostProcess> {
  requireFile(HOST_BUNDLE, 'run `npm run build` first');
  const tokens = path.join(dir, 'tokens.json');
  writeFileSync(tokens, JSON.stringify({ tokens: [{ token: TEST_TOKEN, tenant: 'tenant-a', principal: 'e2e' }, ...extraTokens] }));
  const args = [HOST_BUNDLE, 'serve', '--listen', '127.0.0.1:0', '--db', db, '--tokens', tokens];
  for (const p of packageDirs) args.push('--packages', p);
  args.push(...extraArgs);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`host did not start in 15 s: ${stderr}`)), 15_000);
    child.on('exit', (code) => reject(new Error(`host exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on (https?:\/\/\S+)/.exec(line); // https with --tls-cert/--tls-key
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  return {
    url,
    token: TEST_TOKEN,
    dir,
    child,
    stderr: () => stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
