// A throwaway PostgreSQL server for tests: initdb in a temporary directory, the server on a
// random loopback port with trust authentication, stopped (and its directory removed) by `stop`.
// Used by OpenTofu's pg state backend tests and by the Host's PostgreSQL store tests. A missing
// PostgreSQL is an error, never a skip.
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { requireFile } from './paths.js';

interface ExecResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function exec(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

export interface Postgres {
  readonly port: number;
  /** postgres:// URL of `database` on this server (trust authentication on loopback). */
  url(database: string): string;
  createDatabase(name: string): Promise<void>;
  /** Runs one SQL statement with psql; the rows, unaligned, one per line. */
  query(database: string, sql: string): Promise<string>;
  stop(): Promise<void>;
}

export function findPostgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'postgres'))) : [];
  versions.sort((x, y) => Number(y) - Number(x));
  if (versions.length === 0) throw new Error('PostgreSQL is missing (no /usr/lib/postgresql/*/bin/postgres); run `bash scripts/install-postgres`');
  const bin = path.join(root, versions[0]!, 'bin');
  for (const tool of ['initdb', 'createdb', 'psql']) requireFile(path.join(bin, tool), 'run `bash scripts/install-postgres`');
  return bin;
}

/** The uid and gid to run the server as: PostgreSQL refuses to run as root. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root, but there is no `postgres` system user to run PostgreSQL as; run `bash scripts/install-postgres`');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export async function startPostgres(bin = findPostgresBin()): Promise<Postgres> {
  const user = serverUser();
  const dir = mkdtempSync(path.join(tmpdir(), 'takoform-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  // As root, setpriv execs the server directly (no intermediate process), so the child we
  // hold is the postmaster itself and a signal to it shuts the server down.
  const asServer = (tool: string, args: string[]): [string, string[]] =>
    user ? ['setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--', path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
  const env = { PATH: process.env.PATH, LANG: 'C', LC_ALL: 'C' };
  try {
    const data = path.join(dir, 'data');
    // Trust on loopback: the backend's conn_str then needs no password.
    const init = await exec(...asServer('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']), { cwd: dir, env });
    if (init.code !== 0) throw new Error(`initdb failed (${init.code}): ${init.stderr}`);
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const [command, args] = asServer('postgres', ['-D', data, '-k', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off']);
      const child = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
      let log = '';
      const ready = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 30_000);
        child.stderr!.on('data', (d: Buffer) => {
          log += d.toString();
          if (log.includes('ready to accept connections')) {
            clearTimeout(timer);
            resolve(true);
          }
        });
        child.on('exit', () => {
          clearTimeout(timer);
          resolve(false);
        });
      });
      if (!ready) {
        await stopChild(child);
        // Another process may have taken the port between our probe and the bind: try another.
        if (attempt < 3 && /could not (bind|create)/i.test(log)) continue;
        throw new Error(`PostgreSQL did not start:\n${log}`);
      }
      // If the test process ends without reaching `stop` (a runner timeout), do not leave a
      // server behind: SIGQUIT is PostgreSQL's immediate shutdown, and kill() is synchronous.
      const onExit = () => child.kill('SIGQUIT');
      process.once('exit', onExit);
      return {
        port,
        url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
        async createDatabase(name) {
          const r = await exec(path.join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name], { cwd: dir, env });
          if (r.code !== 0) throw new Error(`createdb ${name} failed (${r.code}): ${r.stderr}`);
        },
        async query(database, sql) {
          const r = await exec(
            path.join(bin, 'psql'),
            ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', database, '-c', sql],
            { cwd: dir, env },
          );
          if (r.code !== 0) throw new Error(`psql failed (${r.code}): ${r.stderr}`);
          return r.stdout;
        },
        async stop() {
          process.off('exit', onExit);
          await stopChild(child);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** SIGINT is PostgreSQL's fast shutdown; SIGKILL only if it does not end in time. */
function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGINT');
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
