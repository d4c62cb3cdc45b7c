// `npm run bench:host` (a script, not a timed test): the reference Host under load, in one run on
// this machine, against the built dist/host/takoform-host.cjs.
//
//   1. fairness: discovery and read latency (p50, p99) of a second tenant, idle and while one
//      tenant keeps 3 validate requests in flight: 8 MiB bodies of 4 million numbers (refused by
//      the JSON value limit), the largest bodies the limit allows, and the 4-million-number bodies
//      with the limit lifted (--max-json-values 100000000), to show what the limit itself buys.
//   2. throughput: creates per second (prepare + apply, 16 clients) against one SQLite Host, one
//      PostgreSQL Host and two PostgreSQL Host processes on one database, with ratios to SQLite.
//
// Usage: npm run bench:host -- [--seconds 10] [--creates 600] [--clients 16]
// Writes bench-results/host-bench-<time>.json and .md, and prints the Markdown tables.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { startPostgres } from '../test/support/postgres.js';

const root = process.cwd();
const HOST = path.join(root, 'dist/host/takoform-host.cjs');
const FORMS = path.resolve(root, '..', 'shared/data/takoform/conformance/takoform-v1/generic-host/external-family');
const API = '/apis/forms.takoform.com/v1';
const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const SECONDS = Number(arg('seconds', '10'));
const CREATES = Number(arg('creates', '600'));
const CLIENTS = Number(arg('clients', '16'));
const TOKENS = {
  tokens: [
    { token: 'bench-a', tenant: 'tenant-a', principal: 'a' },
    { token: 'bench-b', tenant: 'tenant-b', principal: 'b' },
  ],
};
const ref = (JSON.parse(readFileSync(path.join(FORMS, 'range-sequence', 'package-index.json'), 'utf8')) as { formRef: Record<string, string> }).formRef;

interface Host {
  readonly url: string;
  readonly child: ChildProcess;
}

const scratch = mkdtempSync(path.join(tmpdir(), 'takoform-host-bench-'));
writeFileSync(path.join(scratch, 'tokens.json'), JSON.stringify(TOKENS));

async function startHost(db: string, extra: string[] = []): Promise<Host> {
  const child = spawn(
    process.execPath,
    [HOST, 'serve', '--listen', '127.0.0.1:0', '--db', db, '--packages', FORMS, '--tokens', path.join(scratch, 'tokens.json'), ...extra],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`Host exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on (\S+)/.exec(line);
      if (m) resolve(m[1]!);
    });
  });
  return { url, child };
}

function stopHost(host: Host): Promise<void> {
  return new Promise((resolve) => {
    if (host.child.exitCode !== null) return resolve();
    host.child.once('exit', () => resolve());
    host.child.kill('SIGTERM');
  });
}

async function call(
  host: Host,
  token: string,
  method: string,
  target: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(new URL(target, host.url), {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, text: await response.text() };
}

function document(name: string, spec: unknown): Record<string, unknown> {
  return { apiVersion: ref.apiVersion, kind: ref.kind, form: { formRef: ref }, metadata: { name, space: 'bench' }, spec };
}

async function create(host: Host, token: string, name: string): Promise<void> {
  const prepared = await call(host, token, 'POST', `${API}/resources/prepare`, JSON.stringify(document(name, { lower: 1, upper: 2 })));
  if (prepared.status !== 200) throw new Error(`prepare ${name}: ${prepared.status} ${prepared.text}`);
  const { resource, review } = JSON.parse(prepared.text) as { resource: { spec: unknown }; review: { prepareDigest: string } };
  for (let attempt = 1; ; attempt++) {
    const applied = await call(
      host,
      token,
      'PUT',
      `${API}/resources/${ref.apiVersion}/${ref.kind}/${name}`,
      JSON.stringify({ ...document(name, resource.spec), review }),
      {
        'if-none-match': '*',
        'idempotency-key': `bench-${name}`,
      },
    );
    if (applied.status === 201) return;
    // resource_busy is the one answer a client retries (same key); anything else is a failure.
    if (applied.status !== 409 || !applied.text.includes('resource_busy') || attempt > 8) throw new Error(`apply ${name}: ${applied.status} ${applied.text}`);
    await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
  }
}

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
};

// ---------------------------------------------------------------------------------------------
// 1. Fairness

interface Latencies {
  readonly load: string;
  readonly samples: number;
  readonly discovery: [number, number];
  readonly read: [number, number];
  readonly floodAnswers: string;
}

async function measureLatency(host: Host, load: string, floodNumbers: number | undefined): Promise<Latencies> {
  const discovery: number[] = [];
  const read: number[] = [];
  const flood = floodNumbers === undefined ? undefined : await startFlood(host, floodNumbers);
  const readTarget = `${API}/resources/${ref.apiVersion}/${ref.kind}/probe?${new URLSearchParams({ space: 'bench', definitionVersion: ref.definitionVersion!, schemaDigest: ref.schemaDigest! })}`;
  const until = Date.now() + SECONDS * 1000;
  while (Date.now() < until && discovery.length < 500) {
    let t = performance.now();
    const d = await call(host, 'bench-b', 'GET', '/.well-known/takoform/v1');
    discovery.push(performance.now() - t);
    t = performance.now();
    const r = await call(host, 'bench-b', 'GET', readTarget);
    read.push(performance.now() - t);
    if (d.status !== 200 || r.status !== 200) throw new Error(`tenant B answered ${d.status}/${r.status}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const floodAnswers = flood === undefined ? '—' : await flood.stop();
  return {
    load,
    samples: discovery.length,
    discovery: [percentile(discovery, 50), percentile(discovery, 99)],
    read: [percentile(read, 50), percentile(read, 99)],
    floodAnswers,
  };
}

/** Tenant A's 3 streams of validate requests, in their own process (scripts/bench-flood.mjs). */
async function startFlood(host: Host, numbers: number): Promise<{ stop(): Promise<string> }> {
  const child = spawn(process.execPath, [path.join(root, 'scripts/bench-flood.mjs'), host.url, 'bench-a', String(numbers), '3', JSON.stringify(ref)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`flood exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line === 'flooding') resolve();
    });
  });
  // Let the first bodies reach the Host before measuring.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return {
    stop: () =>
      new Promise<string>((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => {
          const answers = JSON.parse(lines.at(-1) ?? '{}') as Record<string, number>;
          resolve(
            Object.entries(answers)
              .map(([status, n]) => `${n}× ${status}`)
              .join(', ') || '—',
          );
        });
        child.kill('SIGTERM');
      }),
  };
}

async function fairness(): Promise<Latencies[]> {
  const rows: Latencies[] = [];
  const huge = 4_000_000;
  // The default limit is 100000 values; the document around `extra` holds 16 more.
  const largestAllowed = 100_000 - 16;
  for (const [label, extra, body] of [
    ['idle', [], undefined],
    ['3 × 8 MiB validate, 4 million numbers (refused by the limit)', [], huge],
    ['3 × largest allowed validate (99,984 numbers)', [], largestAllowed],
    ['3 × 8 MiB validate, 4 million numbers, limit lifted (--max-json-values 100000000; gate and yields still on)', ['--max-json-values', '100000000'], huge],
  ] as const) {
    const host = await startHost(path.join(scratch, `fair-${rows.length}.db`), [...extra]);
    try {
      await create(host, 'bench-b', 'probe');
      rows.push(await measureLatency(host, label, body));
      process.stderr.write(`fairness: ${label} done\n`);
    } finally {
      await stopHost(host);
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// 2. Throughput

interface Throughput {
  readonly setup: string;
  readonly creates: number;
  readonly seconds: number;
  readonly perSecond: number;
}

async function runCreates(hosts: Host[], label: string): Promise<Throughput> {
  // Warm-up (JIT, connections, first pages), not measured.
  await Promise.all(hosts.map((host, h) => Promise.all(Array.from({ length: 10 }, (_, i) => create(host, 'bench-a', `warm-${h}-${i}`)))));
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      const host = hosts[client % hosts.length]!;
      for (let i = next++; i < CREATES; i = next++) await create(host, 'bench-a', `c-${i}`);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { setup: label, creates: CREATES, seconds, perSecond: CREATES / seconds };
}

async function throughput(): Promise<Throughput[]> {
  const rows: Throughput[] = [];
  const sqlite = await startHost(path.join(scratch, 'throughput.db'));
  try {
    rows.push(await runCreates([sqlite], 'one SQLite Host'));
  } finally {
    await stopHost(sqlite);
  }
  process.stderr.write('throughput: SQLite done\n');
  const pg = await startPostgres();
  try {
    await pg.createDatabase('one');
    await pg.createDatabase('two');
    const one = await startHost(pg.url('one'));
    try {
      rows.push(await runCreates([one], 'one PostgreSQL Host'));
    } finally {
      await stopHost(one);
    }
    process.stderr.write('throughput: one PostgreSQL Host done\n');
    const first = await startHost(pg.url('two'));
    const second = await startHost(pg.url('two'));
    try {
      rows.push(await runCreates([first, second], 'two PostgreSQL Host processes'));
    } finally {
      await Promise.all([stopHost(first), stopHost(second)]);
    }
    process.stderr.write('throughput: two PostgreSQL Hosts done\n');
  } finally {
    await pg.stop();
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------

function render(fair: Latencies[], through: Throughput[]): string {
  const ms = (x: number) => x.toFixed(1);
  let t = `Machine: ${cpus().length} cores, Node ${process.version}; ${SECONDS} s per latency row, ${CREATES} creates × ${CLIENTS} clients per throughput row.\n\n`;
  t +=
    '| tenant A sends | samples | discovery p50 (ms) | discovery p99 (ms) | read p50 (ms) | read p99 (ms) | tenant A answers |\n|---|---|---|---|---|---|---|\n';
  for (const r of fair)
    t += `| ${r.load} | ${r.samples} | ${ms(r.discovery[0])} | ${ms(r.discovery[1])} | ${ms(r.read[0])} | ${ms(r.read[1])} | ${r.floodAnswers} |\n`;
  const base = through[0]?.perSecond ?? Number.NaN;
  t += '\n| setup | creates | seconds | creates / s | ratio to one SQLite Host |\n|---|---|---|---|---|\n';
  for (const r of through) t += `| ${r.setup} | ${r.creates} | ${r.seconds.toFixed(2)} | ${r.perSecond.toFixed(1)} | ${(r.perSecond / base).toFixed(2)} |\n`;
  return t;
}

async function main(): Promise<void> {
  readFileSync(HOST); // a missing build is an error, not a skip
  const only = arg('only', 'fairness,throughput').split(',');
  const fair = only.includes('fairness') ? await fairness() : [];
  const through = only.includes('throughput') ? await throughput() : [];
  const table = render(fair, through);
  const dir = path.join(root, 'bench-results');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  writeFileSync(path.join(dir, `host-bench-${stamp}.json`), JSON.stringify({ node: process.version, fairness: fair, throughput: through }, null, 2));
  writeFileSync(path.join(dir, `host-bench-${stamp}.md`), table);
  process.stdout.write(table);
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`bench:host failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(() => rmSync(scratch, { recursive: true, force: true }));
