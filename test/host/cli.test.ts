// The takoform-host CLI: argument handling in-process, and the real executable — bin.ts bundled
// to CommonJS with esbuild, as the build ships it — started, probed over HTTP and stopped.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/host/cli.js';
import { RANGE_SEQUENCE_DIR, TOKENS, TOKEN_A } from './support/host-harness.js';

let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'takoform-cli-'));
  writeFileSync(path.join(scratch, 'tokens.json'), JSON.stringify({ tokens: TOKENS }));
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('main', () => {
  it('prints usage for --help and exits 0', async () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await main(['--help'])).toBe(0);
      expect(String(write.mock.calls[0]?.[0])).toMatch(/^Usage: takoform-host serve --listen HOST:PORT/);
    } finally {
      write.mockRestore();
    }
  });

  it.each([
    [['serve', '--db', ':memory:', '--tokens', 'x']],
    [['serve', '--bogus']],
    [['run']],
    [['serve', '--listen', 'nonsense', '--db', ':memory:', '--packages', 'p', '--tokens', 't']],
    [['serve', '--db', ':memory:', '--packages', 'p', '--tokens', 't', '--tls-cert', 'c.pem']],
    [['serve', '--db', ':memory:', '--packages', 'p', '--tokens', 't', '--operation-pending-polls', '-1']],
  ])('refuses %j with exit code 2', async (argv) => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await main(argv)).toBe(2);
    } finally {
      write.mockRestore();
    }
  });
});

describe('the bundled executable', () => {
  it('bundles to CommonJS without warnings (no import.meta)', async () => {
    const result = await bundle();
    expect(result.warnings).toEqual([]);
  });

  it('prints one listening line, serves, and exits 0 on SIGTERM', async () => {
    const { outfile } = await bundle();
    const child = spawn(
      process.execPath,
      [
        outfile,
        'serve',
        '--listen',
        '127.0.0.1:0',
        '--db',
        path.join(scratch, 'host.db'),
        '--packages',
        RANGE_SEQUENCE_DIR,
        '--tokens',
        path.join(scratch, 'tokens.json'),
        '--standard-service',
        'com.amazonaws.s3',
      ],
      // better-sqlite3 stays external (a native addon); let the bundle find the repo's copy.
      { env: { ...process.env, NODE_PATH: path.resolve(process.cwd(), 'node_modules') }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const lines = createInterface({ input: child.stdout });
    const stdout: string[] = [];
    const firstLine = new Promise<string>((resolve) => lines.once('line', resolve));
    lines.on('line', (line) => stdout.push(line));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

    const line = await Promise.race([firstLine, exited.then((code) => `exited ${code}: ${stderr}`)]);
    const url = /^takoform-host listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)?.[1];
    expect(url, line).toBeDefined();
    const discovery = await fetch(`${url}/.well-known/takoform/v1`, { headers: { authorization: `Bearer ${TOKEN_A}` } });
    expect(discovery.status).toBe(200);
    expect(await discovery.json()).toMatchObject({ endpoints: { api: `${url}/apis/forms.takoform.com/v1` } });

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toEqual([line]);
    expect(stderr).toMatch(/GET \/\.well-known\/takoform\/v1 -> 200/);
  });
});

async function bundle(): Promise<{ outfile: string; warnings: unknown[] }> {
  const outfile = path.join(scratch, 'takoform-host.cjs');
  const result = await build({
    entryPoints: [path.resolve(process.cwd(), 'src/host/bin.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['better-sqlite3'],
    logLevel: 'silent',
  });
  return { outfile, warnings: result.warnings };
}
