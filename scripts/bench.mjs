#!/usr/bin/env node
// The performance benchmark (not a timed test): in one run, on this machine, alternating
// the variants, with repetitions and medians.
//   1. start-up: spawn → handshake line of the provider vs bare `node -e 0`, and peak RSS
//   2. scale: tofu apply (create), plan (refresh, no changes), update of every resource and
//      destroy for N resources of a simple Form against the reference Host, and the same four
//      for N built-in terraform_data resources (the floor); ratio ours / floor
//   3. provider cost: CPU time and peak RSS of the provider processes, Host requests per
//      resource per command
//   4. growth from the smallest to the largest N
// Usage: npm run bench -- [--n 10,100,1000] [--reps 3] [--startup-reps 15]
// Writes bench-results/bench-<time>.json and .md, and prints the Markdown table.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const SIZES = arg('n', '10,100,1000').split(',').map(Number);
const REPS = Number(arg('reps', '3'));
const STARTUP_REPS = Number(arg('startup-reps', '15'));
const TOFU = path.join(root, '.tools/bin/tofu');
const PROVIDER = path.join(root, 'dist/provider/provider.cjs');
const HOST = path.join(root, 'dist/host/takoform-host.cjs');
const FORMS = path.resolve(root, '..', 'shared/data/takoform/conformance/takoform-v1/generic-host/external-family');
const COOKIE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function timeToFirstLine(args, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve(Number(process.hrtime.bigint() - started) / 1e6);
      child.kill('SIGKILL');
    };
    child.stdout.once('data', finish);
    child.on('exit', finish);
    child.on('error', reject);
  });
}

async function startup() {
  // Time the installed package (loader + bundle + the V8 code cache written at install).
  const mirror = mkdtempSync(path.join(tmpdir(), 'bench-startup-'));
  execFileSync(process.execPath, [PROVIDER, 'install', '--mirror', mirror], { stdio: 'ignore' });
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const installed = path.join(mirror, 'registry.takoform.dev/takoform/takoform/0.1.0', `${process.platform}_${arch}`, 'provider.cjs');
  const ours = [];
  const floor = [];
  for (let i = 0; i < STARTUP_REPS; i++) {
    floor.push(await timeToFirstLine(['-e', 'process.stdout.write("x\\n")'], {}));
    ours.push(await timeToFirstLine([installed], { TF_PLUGIN_MAGIC_COOKIE: COOKIE, PLUGIN_PROTOCOL_VERSIONS: '5,6', PLUGIN_CLIENT_CERT: selfCertPem }));
  }
  // Peak RSS of one provider process from start to handshake and shutdown (GNU time).
  const timed = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, installed], {
    env: { PATH: process.env.PATH, TF_PLUGIN_MAGIC_COOKIE: COOKIE, PLUGIN_PROTOCOL_VERSIONS: '6' },
    timeout: 1500,
    killSignal: 'SIGTERM',
    encoding: 'utf8',
  });
  const rss = Number((timed.stderr ?? '').trim().split('\n').pop());
  return { oursMs: median(ours), nodeMs: median(floor), ratio: median(ours) / median(floor), reps: STARTUP_REPS, idlePeakRssMb: rss / 1024 };
}

// A self-signed certificate for PLUGIN_CLIENT_CERT, so start-up includes the TLS set-up.
const selfCertPem = execFileSync(process.execPath, ['-e', `
  const { generateKeyPairSync } = require('crypto');
  process.stdout.write(require('fs').readFileSync(${JSON.stringify(path.join(root, 'test/host/support/tls/cert.pem'))}, 'utf8'));
`]).toString();

function run(cmd, args, cwd, env) {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0 && !(args.includes('-detailed-exitcode') && code === 2)) reject(new Error(`${cmd} ${args.join(' ')} exited ${code}\n${out.slice(-3000)}`));
      else resolve(ms);
    });
  });
}

async function startHost(dir) {
  writeFileSync(path.join(dir, 'tokens.json'), JSON.stringify({ tokens: [{ token: 'bench-token-0123456789', tenant: 'bench', principal: 'bench' }] }));
  const child = spawn(process.execPath, [HOST, 'serve', '--listen', '127.0.0.1:0', '--db', path.join(dir, 'host.db'), '--packages', path.join(FORMS, 'range-sequence'), '--tokens', path.join(dir, 'tokens.json')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let requests = 0;
  child.stderr.on('data', (d) => (requests += d.toString().split('\n').filter((l) => / (GET|POST|PUT|DELETE|HEAD) /.test(l)).length));
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      const m = /listening on (\S+)/.exec(d.toString());
      if (m) resolve(m[1]);
    });
    child.on('exit', () => reject(new Error('host exited')));
  });
  return { url, child, requests: () => requests };
}

function workspace(kind, n) {
  const dir = mkdtempSync(path.join(tmpdir(), `bench-${kind}-${n}-`));
  const mirror = path.join(dir, 'mirror');
  execFileSync(process.execPath, [PROVIDER, 'install', '--mirror', mirror], { stdio: 'ignore' });
  const rc = path.join(dir, 'tofurc');
  writeFileSync(rc, `provider_installation {\n  filesystem_mirror {\n    path = "${mirror}"\n    include = ["registry.takoform.dev/*/*"]\n  }\n  direct {\n    exclude = ["registry.takoform.dev/*/*"]\n  }\n}\n`);
  const work = path.join(dir, 'work');
  mkdirSync(work);
  if (kind === 'takoform') {
    cpSync(path.join(root, 'examples/quickstart/.takoform.lock.json'), path.join(work, '.takoform.lock.json'));
    writeFileSync(path.join(work, 'main.tf'), `terraform {\n  required_providers {\n    takoform = { source = "registry.takoform.dev/takoform/takoform", version = "0.1.0" }\n  }\n}\nprovider "takoform" {}\nvariable "upper" {\n  default = 10\n}\nresource "takoform_range_sequence" "r" {\n  count = ${n}\n  name  = "bench-\${count.index}"\n  lower = 1\n  upper = var.upper\n}\n`);
  } else {
    writeFileSync(path.join(work, 'main.tf'), `variable "upper" {\n  default = 10\n}\nresource "terraform_data" "r" {\n  count = ${n}\n  input = { name = "bench-\${count.index}", lower = 1, upper = var.upper }\n}\n`);
  }
  return { dir, work, rc };
}

async function scale(kind, n) {
  const { dir, work, rc } = workspace(kind, n);
  const host = kind === 'takoform' ? await startHost(dir) : undefined;
  const stats = path.join(dir, 'provider-stats.jsonl');
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    TF_CLI_CONFIG_FILE: rc,
    TF_IN_AUTOMATION: '1',
    CHECKPOINT_DISABLE: '1',
    TAKOFORM_PROVIDER_STATS_FILE: stats,
    ...(host ? { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: 'bench-token-0123456789', TAKOFORM_SPACE: 'bench' } : {}),
  };
  await run(TOFU, ['init', '-input=false'], work, env);
  const result = {};
  const step = async (name, args) => {
    writeFileSync(stats, '');
    const before = host ? host.requests() : 0;
    const ms = await run(TOFU, args, work, env);
    await new Promise((r) => setTimeout(r, 100)); // let the host flush its request log
    const procs = readFileSync(stats, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    result[name] = {
      seconds: ms / 1000,
      hostRequestsPerResource: host ? (host.requests() - before) / n : 0,
      providerCpuSeconds: procs.reduce((s, p) => s + (p.cpuUserUs + p.cpuSystemUs) / 1e6, 0),
      providerPeakRssMb: procs.reduce((m, p) => Math.max(m, p.maxRssKb / 1024), 0),
      providerLaunches: procs.length,
    };
  };
  await step('apply', ['apply', '-auto-approve', '-input=false', '-parallelism=10']);
  await step('plan', ['plan', '-input=false', '-detailed-exitcode', '-parallelism=10']);
  await step('update', ['apply', '-auto-approve', '-input=false', '-parallelism=10', '-var', 'upper=20']);
  await step('destroy', ['destroy', '-auto-approve', '-input=false', '-parallelism=10', '-var', 'upper=20']);
  host?.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
  return result;
}

const STEPS = ['apply', 'plan', 'update', 'destroy'];

async function main() {
  const results = { machine: { node: process.version, cpus: (await import('node:os')).cpus().length, date: new Date().toISOString() }, startup: await startup(), scale: {} };
  for (const n of SIZES) {
    const runs = { takoform: [], floor: [] };
    for (let r = 0; r < REPS; r++) {
      // Alternate the variants so drift in machine load hits both alike.
      runs.takoform.push(await scale('takoform', n));
      runs.floor.push(await scale('floor', n));
    }
    results.scale[n] = {};
    for (const s of STEPS) {
      const med = (kind, key) => median(runs[kind].map((x) => x[s][key]));
      results.scale[n][s] = {
        oursSeconds: med('takoform', 'seconds'),
        floorSeconds: med('floor', 'seconds'),
        ratio: med('takoform', 'seconds') / med('floor', 'seconds'),
        hostRequestsPerResource: med('takoform', 'hostRequestsPerResource'),
        providerCpuSeconds: med('takoform', 'providerCpuSeconds'),
        providerPeakRssMb: med('takoform', 'providerPeakRssMb'),
        providerLaunches: med('takoform', 'providerLaunches'),
      };
    }
    process.stderr.write(`bench: N=${n} done\n`);
  }
  const table = markdown(results);
  mkdirSync(path.join(root, 'bench-results'), { recursive: true });
  const stamp = results.machine.date.replace(/[:.]/g, '-');
  writeFileSync(path.join(root, 'bench-results', `bench-${stamp}.json`), JSON.stringify(results, null, 2));
  writeFileSync(path.join(root, 'bench-results', `bench-${stamp}.md`), table);
  process.stdout.write(table);
}

function markdown(r) {
  const f = (x, d = 2) => x.toFixed(d);
  let t = `Start-up (median of ${r.startup.reps}): provider ${f(r.startup.oursMs, 0)} ms to the handshake line vs \`node -e\` ${f(r.startup.nodeMs, 0)} ms — ratio ${f(r.startup.ratio)}; idle provider peak RSS ${f(r.startup.idlePeakRssMb, 0)} MB.\n\n`;
  t += '| N | command | ours (s) | terraform_data (s) | ratio | Host requests / resource | provider CPU (s) | provider peak RSS (MB) | launches |\n|---|---|---|---|---|---|---|---|---|\n';
  for (const [n, steps] of Object.entries(r.scale)) {
    for (const [s, x] of Object.entries(steps)) {
      t += `| ${n} | ${s} | ${f(x.oursSeconds)} | ${f(x.floorSeconds)} | ${f(x.ratio)} | ${f(x.hostRequestsPerResource)} | ${f(x.providerCpuSeconds)} | ${f(x.providerPeakRssMb, 0)} | ${x.providerLaunches} |\n`;
    }
  }
  const sizes = Object.keys(r.scale).map(Number);
  if (sizes.length > 1) {
    const [a, b] = [Math.min(...sizes), Math.max(...sizes)];
    t += `\nGrowth ${a} → ${b} (×${b / a} resources): ` + STEPS.map((s) => `${s} ×${f(r.scale[b][s].oursSeconds / r.scale[a][s].oursSeconds, 1)} (floor ×${f(r.scale[b][s].floorSeconds / r.scale[a][s].floorSeconds, 1)})`).join(', ') + '\n';
  }
  return t;
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${e.stack ?? e}\n`);
  process.exit(1);
});
