#!/usr/bin/env node
// The performance benchmark (not a timed test): in one run, on this machine, alternating
// the variants, with repetitions and medians.
//   1. start-up: spawn → handshake line of the provider vs bare `node -e 0`, and peak RSS
//   2. scale: tofu apply (create), plan (refresh, no changes), update of every resource and
//      destroy for N resources of a simple Form against the reference Host, the same four for
//      N `null_resource` of hashicorp/terraform-provider-null (the cheapest external Go
//      provider, built from the Go module proxy by scripts/install-null-provider) and for N
//      built-in terraform_data resources (the floor no external provider can reach); ratios
//      ours / null and ours / floor
//   3. where the CPU goes: the provider processes (CPU, peak RSS, launches, calls per RPC),
//      the Host (CPU from /proc/<pid>/stat, requests per resource) and core itself (the CLI's
//      own CPU: all its children's CPU from the shell's `times`, minus the providers'), for
//      both variants — the floor's core CPU is the whole cost of terraform_data
//   4. growth from N=100 to N=1000 (else from the smallest to the largest N)
//   5. with --state-floor: the state floor — a Go provider with our exact schema, identity and
//      state that does no work (scripts/bench-state-floor), and its variants without parts of
//      our state: what core spends on our state alone, and what each part costs it; and the
//      Node floor (scripts/bench-node-floor.ts): the same no-op provider on our own Node stack
//      (transport, handshake, msgpack), installed like ours in the wrapper form, without and
//      with the Host requests ours makes ('node floor', 'node floor + Host') — what a provider
//      of our design cannot go below
// Usage: npm run bench -- [--n 10,100,1000,3000 | --n none] [--reps 3] [--startup-reps 15] [--form executable|wrapper]
//                          [--state-floor [--floor-variants name,name]] [--baseline DIR [--baseline-env K=V,K=V]]
// Writes bench-results/bench-<time>.json and .md, and prints the Markdown table.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const SIZES = arg('n', '10,100,1000,3000') === 'none' ? [] : arg('n', '10,100,1000,3000').split(',').map(Number); // --n none: start-up only
const REPS = Number(arg('reps', '3'));
const STARTUP_REPS = Number(arg('startup-reps', '15'));
// The scale runs install what `install` installs here (the single executable), or the wrapper.
const FORM = arg('form', 'executable');
const STATE_FLOOR = process.argv.includes('--state-floor');
// --baseline DIR: another build of ours (DIR holds its dist/provider: provider.cjs and
// provider-main.cjs, e.g. built from an earlier commit in a worktree), run as one more variant
// against the same Host, to measure a change side by side in one run.
const BASELINE = arg('baseline') ? path.resolve(arg('baseline'), 'provider.cjs') : undefined;
// --baseline-env K=V,K=V: settings for the baseline's provider only (e.g. the same build, as
// --baseline dist/provider, with TAKOFORM_CREATE_JOURNAL=off: what one setting costs).
const BASELINE_ENV = Object.fromEntries(
  (arg('baseline-env') ?? '')
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
/** The variants that run a build of ours against a reference Host. */
const isOurs = (kind) => kind === 'takoform' || kind === 'baseline';
const TOFU = path.join(root, '.tools/bin/tofu');
const PROVIDER = path.join(root, 'dist/provider/provider.cjs');
/** The version a build installs under (its mirror directory, the configuration's constraint). */
const versionOf = (bundle) => execFileSync(process.execPath, [bundle, 'version']).toString().trim();
const VERSION = versionOf(PROVIDER);
const BASELINE_VERSION = BASELINE ? versionOf(BASELINE) : undefined;
/** The mirror directory of our package (every takoform-sourced variant but the baseline is installed as this version). */
const packageDir = (mirror) => path.join(mirror, 'registry.takoform.dev/takoform/takoform', VERSION, `${process.platform}_${GO_ARCH}`);
const HOST = path.join(root, 'dist/host/takoform-host.cjs');
const FORMS = path.resolve(root, '..', 'shared/data/takoform/conformance/takoform-v1/generic-host/external-family');
// scripts/install-null-provider: a filesystem mirror whose package holds the CPU-recording
// launcher (scripts/bench-cpu-recorder) under the provider's name, and the provider it runs in
// wrapped/ (inside the package, so that core hashes it for the lock file as in a real install).
const NULL_DIR = path.join(root, '.tools/null-provider');
const NULL_VERSION = '3.99.0';
const GO_ARCH = process.arch === 'x64' ? 'amd64' : process.arch;
const NULL_PROVIDER = path.join(
  NULL_DIR,
  'mirror/registry.terraform.io/hashicorp/null',
  NULL_VERSION,
  `${process.platform}_${GO_ARCH}`,
  'wrapped/terraform-provider-null',
);
const STATE_FLOOR_DIR = path.join(root, '.tools/state-floor');
// The state floor's variants: our schema as it is, and without each part that core works hardest on.
// The conditions are one JSON string since state version 1; 'conditions as a list' is the first
// release's shape (a list of six-attribute objects), kept to show what the change saved.
const CONDITIONS_LIST = {
  type: ['list', ['object', { type: 'string', status: 'string', reason: 'string', message: 'string', host_reason: 'string', last_transition_time: 'string' }]],
  description_kind: 'plain',
  computed: true,
};
const ALL_STATE_FLOOR_VARIANTS = {
  'state floor': { dropAttributes: [], dropIdentity: false },
  'without identity': { dropAttributes: [], dropIdentity: true },
  'without form_ref': { dropAttributes: ['form_ref'], dropIdentity: false },
  'without conditions': { dropAttributes: ['conditions_json'], dropIdentity: false },
  'without all three': { dropAttributes: ['form_ref', 'conditions_json'], dropIdentity: true },
  'conditions as a list': { dropAttributes: ['conditions_json'], dropIdentity: false, addAttributes: { conditions: CONDITIONS_LIST } },
  // Our state as it is, served by the no-op provider written on our own Node stack.
  'node floor': { dropAttributes: [], dropIdentity: false, runtime: 'node' },
  // ...making the Host requests ours makes, through our Host client, against its own Host.
  'node floor + Host': { dropAttributes: [], dropIdentity: false, runtime: 'node', host: true },
};
const NODE_FLOOR_DIR = path.join(root, '.tools/node-floor');
const isNodeFloor = (kind) => STATE_FLOOR_VARIANTS[kind]?.runtime === 'node';
/** The variants that run against a reference Host of their own. */
const needsHost = (kind) => isOurs(kind) || !!STATE_FLOOR_VARIANTS[kind]?.host;
// --floor-variants 'state floor,conditions as a list': only those (a shorter run).
const STATE_FLOOR_VARIANTS = Object.fromEntries(
  Object.entries(ALL_STATE_FLOOR_VARIANTS).filter(([name]) => !arg('floor-variants') || arg('floor-variants').split(',').includes(name)),
);
const COOKIE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** CPU seconds (user + system) a live process has used so far, from /proc/<pid>/stat. */
function processCpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

function timeToFirstLine(command, args, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
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

/**
 * Peak RSS of one idle provider: started like core starts it, left idle for a moment after its
 * handshake, then stopped with SIGTERM, on which it writes its own statistics (its own peak RSS,
 * VmHWM: src/plugin/process-stats.ts). /proc/<pid>/status VmHWM, read just before the signal,
 * is the fallback.
 */
async function idleProviderPeakRssMb(installed, env) {
  const stats = path.join(mkdtempSync(path.join(tmpdir(), 'bench-rss-')), 'stats.jsonl');
  const child = spawn(installed, [], { env: { PATH: process.env.PATH, ...env, TAKOFORM_PROVIDER_STATS_FILE: stats }, stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  await new Promise((r) => setTimeout(r, 300));
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
  const own = existsSync(stats)
    ? readFileSync(stats, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))[0]
    : undefined;
  rmSync(path.dirname(stats), { recursive: true, force: true });
  return (own?.maxRssKb ?? Number(hwm)) / 1024;
}

async function startup() {
  // Each variant is timed as core starts it: the installed executable, run directly.
  //   wrapper: sh + `exec node` + loader + bundle + the V8 code cache written at install
  //   single executable: Node embedded, with the code cache in the blob (what `install` picks)
  //   single executable without code cache: the same blob built with useCodeCache off
  const dirs = [];
  const tmp = (name) => {
    const d = mkdtempSync(path.join(tmpdir(), name));
    dirs.push(d);
    return d;
  };
  const pkg = (mirror) => path.join(packageDir(mirror), `terraform-provider-takoform_v${VERSION}`);
  const wrapperMirror = tmp('bench-startup-');
  execFileSync(process.execPath, [PROVIDER, 'install', '--wrapper', '--mirror', wrapperMirror], { stdio: 'ignore' });
  const seaMirror = tmp('bench-startup-sea-');
  execFileSync(process.execPath, [PROVIDER, 'install', '--mirror', seaMirror], { stdio: 'ignore' });
  const noCache = path.join(tmp('bench-sea-nocache-'), 'terraform-provider-takoform');
  execFileSync(process.execPath, [path.join(root, 'scripts/build-sea.mjs'), '--no-code-cache', '--out', noCache], { stdio: 'ignore' });
  const variants = [
    { name: 'wrapper (node on PATH)', command: pkg(wrapperMirror) },
    { name: 'single executable, code cache', command: pkg(seaMirror) },
    { name: 'single executable, no code cache', command: noCache },
    { name: 'terraform-provider-null (Go)', command: NULL_PROVIDER },
  ];
  if (
    !readFileSync(variants[1].command)
      .subarray(0, 4)
      .equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))
  )
    throw new Error('install did not install the single executable; run `npm run build`');
  // The providers are SIGKILLed at their handshake line, as fast as possible: give them a
  // socket directory of their own, removed at the end (a killed provider cannot clean up).
  const sockets = tmp('bench-sock-');
  const env = { TF_PLUGIN_MAGIC_COOKIE: COOKIE, PLUGIN_PROTOCOL_VERSIONS: '5,6', PLUGIN_CLIENT_CERT: clientCertPem, PLUGIN_UNIX_SOCKET_DIR: sockets };
  const times = variants.map(() => []);
  const floor = [];
  for (let i = 0; i < STARTUP_REPS; i++) {
    // Alternate the variants so drift in machine load hits all alike.
    floor.push(await timeToFirstLine(process.execPath, ['-e', 'process.stdout.write("x\\n")'], {}));
    for (const [k, v] of variants.entries()) times[k].push(await timeToFirstLine(v.command, [], env));
  }
  const nodeMs = median(floor);
  const rows = [];
  for (const [k, v] of variants.entries()) {
    // The Go provider writes no statistics of its own: its idle RSS is /proc's VmHWM.
    rows.push({ name: v.name, ms: median(times[k]), ratio: median(times[k]) / nodeMs, idlePeakRssMb: await idleProviderPeakRssMb(v.command, env) });
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  // oursMs / ratio: what `install` installs on this platform (the single executable).
  return { oursMs: rows[1].ms, nodeMs, ratio: rows[1].ratio, reps: STARTUP_REPS, idlePeakRssMb: rows[1].idlePeakRssMb, variants: rows };
}

// A certificate for PLUGIN_CLIENT_CERT, so start-up includes the mutual-TLS set-up.
const clientCertPem = readFileSync(path.join(root, 'test/host/support/tls/cert.pem'), 'utf8');

/**
 * Runs the CLI through bash, which prints its children's CPU (`times`: the CLI and every
 * provider it started and waited for) on the last stderr line. Resolves { ms, childCpuSeconds }.
 */
function run(cmd, args, cwd, env) {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', '"$@"; rc=$?; times >&2; exit $rc', 'bash', cmd, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const [user = 0, system = 0] = (err.trim().split('\n').pop() ?? '').split(/\s+/).map((t) => {
        const m = /^(\d+)m([\d.]+)s$/.exec(t);
        return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
      });
      if (code !== 0 && !(args.includes('-detailed-exitcode') && code === 2))
        reject(new Error(`${cmd} ${args.join(' ')} exited ${code}\n${(out + err).slice(-3000)}`));
      else resolve({ ms, childCpuSeconds: user + system, allocatedMb: goAllocatedMb(err) });
    });
  });
}

/**
 * What the CLI's Go heap allocated during the command, in MB, from the runtime's GC trace
 * (GODEBUG=gctrace=1 on its stderr: one "gc N @… A->B->C MB" line per cycle). Each cycle
 * allocated what the heap grew to by mark termination (B) beyond what the previous cycle
 * left live (C). Unlike CPU seconds this does not move with the machine's load (Go's idle
 * GC workers spend more CPU on an idle machine), so it compares core's work across variants
 * and runs; the MB rounding of each line averages out over hundreds of cycles.
 */
function goAllocatedMb(stderr) {
  let allocated = 0;
  let live = 0;
  for (const m of stderr.matchAll(/^gc \d+ @[^\n]*?(\d+)->(\d+)->(\d+) MB/gm)) {
    allocated += Math.max(0, Number(m[2]) - live);
    live = Number(m[3]);
  }
  return allocated;
}

async function startHost(dir) {
  writeFileSync(path.join(dir, 'tokens.json'), JSON.stringify({ tokens: [{ token: 'bench-token-0123456789', tenant: 'bench', principal: 'bench' }] }));
  const child = spawn(
    process.execPath,
    [
      HOST,
      'serve',
      '--listen',
      '127.0.0.1:0',
      '--db',
      path.join(dir, 'host.db'),
      '--packages',
      path.join(FORMS, 'range-sequence'),
      '--tokens',
      path.join(dir, 'tokens.json'),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // One log line per request; a line may be split across pipe reads, so count whole lines.
  let requests = 0;
  let partial = '';
  child.stderr.on('data', (d) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop() ?? '';
    requests += lines.filter((l) => / (GET|POST|PUT|DELETE|HEAD) /.test(l)).length;
  });
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      const m = /listening on (\S+)/.exec(d.toString());
      if (m) resolve(m[1]);
    });
    child.on('exit', () => reject(new Error('host exited')));
  });
  return { url, child, requests: () => requests, cpuSeconds: () => processCpuSeconds(child.pid) };
}

const oursConfiguration = (n, version = VERSION) =>
  `terraform {\n  required_providers {\n    takoform = { source = "registry.takoform.dev/takoform/takoform", version = "${version}" }\n  }\n}\nprovider "takoform" {}\nvariable "upper" {\n  default = 10\n}\nresource "takoform_range_sequence" "r" {\n  count = ${n}\n  name  = "bench-\${count.index}"\n  lower = 1\n  upper = var.upper\n}\n`;

function workspace(kind, n) {
  const dir = mkdtempSync(path.join(tmpdir(), `bench-${kind.replace(/\W+/g, '-')}-${n}-`));
  let mirror = path.join(dir, 'mirror');
  let source = 'registry.takoform.dev/*/*';
  if (isOurs(kind))
    execFileSync(process.execPath, [kind === 'baseline' ? BASELINE : PROVIDER, 'install', ...(FORM === 'wrapper' ? ['--wrapper'] : []), '--mirror', mirror], {
      stdio: 'ignore',
    });
  if (kind === 'null') [mirror, source] = [path.join(NULL_DIR, 'mirror'), 'registry.terraform.io/hashicorp/null'];
  if (kind in STATE_FLOOR_VARIANTS) mirror = path.join(isNodeFloor(kind) ? NODE_FLOOR_DIR : STATE_FLOOR_DIR, 'mirror');
  const rc = path.join(dir, 'tofurc');
  writeFileSync(
    rc,
    `provider_installation {\n  filesystem_mirror {\n    path = "${mirror}"\n    include = ["${source}"]\n  }\n  direct {\n    exclude = ["${source}"]\n  }\n}\n`,
  );
  const work = path.join(dir, 'work');
  mkdirSync(work);
  if (isOurs(kind) || kind in STATE_FLOOR_VARIANTS) {
    cpSync(path.join(root, 'examples/quickstart/.takoform.lock.json'), path.join(work, '.takoform.lock.json'));
    writeFileSync(path.join(work, 'main.tf'), oursConfiguration(n, kind === 'baseline' ? BASELINE_VERSION : VERSION));
  } else if (kind === 'null') {
    // null_resource has only `triggers` (a map of strings, every change a replacement) and `id`:
    // the update step replaces each resource, the most an external provider is asked for.
    writeFileSync(
      path.join(work, 'main.tf'),
      `terraform {\n  required_providers {\n    null = { source = "registry.terraform.io/hashicorp/null", version = "${NULL_VERSION}" }\n  }\n}\nvariable "upper" {\n  default = 10\n}\nresource "null_resource" "r" {\n  count    = ${n}\n  triggers = { name = "bench-\${count.index}", lower = "1", upper = var.upper }\n}\n`,
    );
  } else {
    writeFileSync(
      path.join(work, 'main.tf'),
      `variable "upper" {\n  default = 10\n}\nresource "terraform_data" "r" {\n  count = ${n}\n  input = { name = "bench-\${count.index}", lower = 1, upper = var.upper }\n}\n`,
    );
  }
  return { dir, work, rc };
}

async function scale(kind, n) {
  const { dir, work, rc } = workspace(kind, n);
  const host = needsHost(kind) ? await startHost(dir) : undefined;
  const stats = path.join(dir, 'provider-stats.jsonl');
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    TF_CLI_CONFIG_FILE: rc,
    TF_IN_AUTOMATION: '1',
    CHECKPOINT_DISABLE: '1',
    // The CLI's GC trace (see goAllocatedMb). A Go provider inherits it too; its stderr goes
    // to go-plugin's log, not to the CLI's stderr.
    GODEBUG: 'gctrace=1',
    TAKOFORM_PROVIDER_STATS_FILE: stats,
    ...(kind === 'null' ? { BENCH_WRAPPED_PROVIDER: NULL_PROVIDER } : {}),
    ...(kind in STATE_FLOOR_VARIANTS ? stateFloorEnv(kind) : {}),
    ...(kind === 'baseline' ? BASELINE_ENV : {}),
    ...(host ? { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: 'bench-token-0123456789', TAKOFORM_SPACE: 'bench' } : {}),
  };
  await run(TOFU, ['init', '-input=false'], work, env);
  const result = {};
  const step = async (name, args) => {
    writeFileSync(stats, '');
    const before = host ? host.requests() : 0;
    const hostCpuBefore = host ? host.cpuSeconds() : 0;
    const { ms, childCpuSeconds, allocatedMb } = await run(TOFU, args, work, env);
    await new Promise((r) => setTimeout(r, 100)); // let the host flush its request log
    const procs = readFileSync(stats, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const providerCpuSeconds = procs.reduce((s, p) => s + (p.cpuUserUs + p.cpuSystemUs) / 1e6, 0);
    // The null variant's launcher (bench-cpu-recorder) is neither core nor provider: left out.
    const launcherCpuSeconds = procs.reduce((s, p) => s + (p.launcherCpuUs ?? 0) / 1e6, 0);
    const rpcs = {};
    for (const p of procs) for (const [rpc, count] of Object.entries(p.rpcs ?? {})) rpcs[rpc] = (rpcs[rpc] ?? 0) + count;
    result[name] = {
      seconds: ms / 1000,
      hostRequestsPerResource: host ? (host.requests() - before) / n : 0,
      hostCpuSeconds: host ? host.cpuSeconds() - hostCpuBefore : 0,
      coreCpuSeconds: childCpuSeconds - providerCpuSeconds - launcherCpuSeconds,
      coreAllocatedMb: allocatedMb,
      providerCpuSeconds,
      providerPeakRssMb: procs.reduce((m, p) => Math.max(m, p.maxRssKb / 1024), 0),
      providerLaunches: procs.length,
      providerCpuMsPerLaunch: procs.length ? (1000 * providerCpuSeconds) / procs.length : 0,
      providerHandshakeMs: procs.length ? median(procs.map((p) => p.handshakeMs ?? NaN)) : 0,
      // What a launch costs before core can connect (ours only: the Go launcher records totals).
      providerHandshakeCpuMs: procs.length ? median(procs.map((p) => (p.handshakeCpuUs ?? NaN) / 1000)) : 0,
      // Wall time from a launch to its first RPC: what core waits for before every walk.
      providerFirstRpcMs: procs.length ? median(procs.map((p) => p.firstRpcMs ?? NaN)) : 0,
      rpcs,
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

/**
 * Builds the state floor (scripts/bench-state-floor) and lays it out as a filesystem mirror of
 * our provider's address: the CPU-recording launcher under our executable's name, the floor in
 * wrapped/, and a padding file that brings the package to the bytes of ours, so that core's
 * hash of the package for the lock file costs the same. Writes one schema file per variant,
 * taken from our provider's own `providers schema -json`.
 */
let stateFloor;
function prepareStateFloor() {
  const pkg = packageDir(path.join(STATE_FLOOR_DIR, 'mirror'));
  rmSync(STATE_FLOOR_DIR, { recursive: true, force: true });
  mkdirSync(path.join(pkg, 'wrapped'), { recursive: true });
  const floorBinary = path.join(pkg, 'wrapped/terraform-provider-takoform');
  execFileSync('go', ['build', '-trimpath', '-ldflags', '-s -w', '-o', floorBinary, '.'], {
    cwd: path.join(root, 'scripts/bench-state-floor'),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  cpSync(
    path.join(path.dirname(path.dirname(NULL_PROVIDER)), `terraform-provider-null_v${NULL_VERSION}`),
    path.join(pkg, `terraform-provider-takoform_v${VERSION}`),
  );
  // Our schema as core sees it, from our provider itself.
  const ours = workspace('takoform', 1);
  const env = { PATH: process.env.PATH, HOME: ours.dir, TF_CLI_CONFIG_FILE: ours.rc, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' };
  execFileSync(TOFU, ['init', '-input=false'], { cwd: ours.work, env, stdio: 'ignore' });
  const schema = JSON.parse(execFileSync(TOFU, ['providers', 'schema', '-json'], { cwd: ours.work, env, maxBuffer: 64 << 20 }).toString());
  const oursPkg = packageDir(path.join(ours.dir, 'mirror'));
  const oursBytes = packageBytes(oursPkg);
  const padding = oursBytes - packageBytes(pkg);
  if (padding > 0) writeFileSync(path.join(pkg, 'padding'), Buffer.alloc(padding));
  rmSync(ours.dir, { recursive: true, force: true });
  const lock = JSON.parse(readFileSync(path.join(root, 'examples/quickstart/.takoform.lock.json'), 'utf8'));
  const ref = lock.forms.find((f) => f.typeName === 'takoform_range_sequence').formRef;
  const formRef = JSON.stringify({ api_version: ref.apiVersion, kind: ref.kind, definition_version: ref.definitionVersion, schema_digest: ref.schemaDigest });
  const schemaFiles = {};
  for (const [name, variant] of Object.entries(STATE_FLOOR_VARIANTS)) {
    const copy = structuredClone(schema);
    const provider = Object.values(copy.provider_schemas)[0];
    const attributes = provider.resource_schemas.takoform_range_sequence.block.attributes;
    for (const a of variant.dropAttributes) delete attributes[a];
    Object.assign(attributes, variant.addAttributes ?? {});
    if (variant.dropIdentity) delete provider.resource_identity_schemas.takoform_range_sequence;
    schemaFiles[name] = path.join(STATE_FLOOR_DIR, `schema-${name.replace(/\W+/g, '-')}.json`);
    writeFileSync(schemaFiles[name], JSON.stringify(copy));
  }
  stateFloor = { floorBinary, formRef, schemaFiles };
  const nodeFloor = Object.keys(STATE_FLOOR_VARIANTS).find(isNodeFloor);
  if (nodeFloor) prepareNodeFloor(stateFloorEnv(nodeFloor), oursBytes);
}

/** The bytes of every file in a provider package: what core hashes for the lock file. */
function packageBytes(dir) {
  return readdirSync(dir, { recursive: true })
    .map((f) => statSync(path.join(dir, String(f))))
    .reduce((sum, st) => sum + (st.isFile() ? st.size : 0), 0);
}

/**
 * The Node floor's package: ours installed in the wrapper form (shell wrapper, loader, bundle,
 * V8 code cache), its bundle replaced by scripts/bench-node-floor.ts bundled as ours is, and a
 * code cache trained for it as `install` trains ours; padded to the bytes of ours.
 */
function prepareNodeFloor(env, oursBytes) {
  rmSync(NODE_FLOOR_DIR, { recursive: true, force: true });
  const mirror = path.join(NODE_FLOOR_DIR, 'mirror');
  execFileSync(process.execPath, [PROVIDER, 'install', '--wrapper', '--mirror', mirror], { stdio: 'ignore' });
  const pkg = packageDir(mirror);
  execFileSync(process.execPath, [path.join(root, 'scripts/build-node-floor.mjs'), path.join(pkg, 'provider-main.cjs')], { stdio: 'inherit' });
  rmSync(path.join(pkg, 'provider-main.cache'), { force: true });
  execFileSync(process.execPath, [path.join(pkg, 'provider.cjs')], {
    env: { PATH: process.env.PATH, ...env, TAKOFORM_CODE_CACHE_TRAINING: '1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (!existsSync(path.join(pkg, 'provider-main.cache'))) throw new Error('the Node floor wrote no code cache');
  const size = packageBytes(pkg);
  if (oursBytes > size) writeFileSync(path.join(pkg, 'padding'), Buffer.alloc(oursBytes - size));
}

function stateFloorEnv(kind) {
  // TAKOFORM_SPACE: the space ours is given (scale's Host env), so the floor's states carry it too.
  return {
    ...(isNodeFloor(kind) ? {} : { BENCH_WRAPPED_PROVIDER: stateFloor.floorBinary }),
    ...(STATE_FLOOR_VARIANTS[kind]?.host ? { NODE_FLOOR_HOST: '1' } : {}),
    STATE_FLOOR_SCHEMA_FILE: stateFloor.schemaFiles[kind],
    STATE_FLOOR_FORM_REF: stateFloor.formRef,
    TAKOFORM_SPACE: 'bench',
  };
}

async function main() {
  execFileSync(path.join(root, 'scripts/install-null-provider'), { stdio: ['ignore', 'ignore', 'inherit'] });
  const results = {
    form: FORM,
    ...(BASELINE ? { baseline: arg('baseline'), baselineEnv: BASELINE_ENV } : {}),
    loadAverage: { start: (await import('node:os')).loadavg() },
    machine: { node: process.version, cpus: (await import('node:os')).cpus().length, date: new Date().toISOString() },
    startup: await startup(),
    scale: {},
  };
  if (STATE_FLOOR) prepareStateFloor();
  for (const n of SIZES) {
    const runs = {
      takoform: [],
      null: [],
      floor: [],
      ...(BASELINE ? { baseline: [] } : {}),
      ...(STATE_FLOOR ? Object.fromEntries(Object.keys(STATE_FLOOR_VARIANTS).map((k) => [k, []])) : {}),
    };
    const reps = n >= 3000 ? 1 : REPS; // the largest point runs once (minutes per variant)
    for (let r = 0; r < reps; r++) {
      // Alternate the variants so drift in machine load hits all alike.
      for (const kind of Object.keys(runs)) runs[kind].push(await scale(kind, n));
    }
    results.scale[n] = {};
    for (const s of STEPS) {
      const med = (kind, key) => median(runs[kind].map((x) => x[s][key]));
      // Ratios are of medians of the same run, so load drift cancels as far as it can.
      results.scale[n][s] = {
        reps,
        oursSeconds: med('takoform', 'seconds'),
        nullSeconds: med('null', 'seconds'),
        floorSeconds: med('floor', 'seconds'),
        ratio: med('takoform', 'seconds') / med('floor', 'seconds'),
        nullRatio: med('takoform', 'seconds') / med('null', 'seconds'),
        hostRequestsPerResource: med('takoform', 'hostRequestsPerResource'),
        providerCpuSeconds: med('takoform', 'providerCpuSeconds'),
        nullProviderCpuSeconds: med('null', 'providerCpuSeconds'),
        providerCpuMsPerLaunch: med('takoform', 'providerCpuMsPerLaunch'),
        nullProviderCpuMsPerLaunch: med('null', 'providerCpuMsPerLaunch'),
        hostCpuSeconds: med('takoform', 'hostCpuSeconds'),
        coreCpuSeconds: med('takoform', 'coreCpuSeconds'),
        nullCoreCpuSeconds: med('null', 'coreCpuSeconds'),
        floorCoreCpuSeconds: med('floor', 'coreCpuSeconds'),
        coreAllocatedMb: med('takoform', 'coreAllocatedMb'),
        nullCoreAllocatedMb: med('null', 'coreAllocatedMb'),
        floorCoreAllocatedMb: med('floor', 'coreAllocatedMb'),
        providerPeakRssMb: med('takoform', 'providerPeakRssMb'),
        nullProviderPeakRssMb: med('null', 'providerPeakRssMb'),
        providerLaunches: med('takoform', 'providerLaunches'),
        nullProviderLaunches: med('null', 'providerLaunches'),
        providerHandshakeMs: med('takoform', 'providerHandshakeMs'),
        providerHandshakeCpuMs: med('takoform', 'providerHandshakeCpuMs'),
        providerFirstRpcMs: med('takoform', 'providerFirstRpcMs'),
        rpcs: runs.takoform[0][s].rpcs,
        ...(BASELINE
          ? {
              baseline: {
                seconds: med('baseline', 'seconds'),
                nullRatio: med('baseline', 'seconds') / med('null', 'seconds'),
                coreCpuSeconds: med('baseline', 'coreCpuSeconds'),
                coreAllocatedMb: med('baseline', 'coreAllocatedMb'),
                providerCpuSeconds: med('baseline', 'providerCpuSeconds'),
                hostCpuSeconds: med('baseline', 'hostCpuSeconds'),
              },
            }
          : {}),
        ...(STATE_FLOOR
          ? {
              stateFloor: Object.fromEntries(
                Object.keys(STATE_FLOOR_VARIANTS).map((k) => [
                  k,
                  {
                    seconds: med(k, 'seconds'),
                    nullRatio: med(k, 'seconds') / med('null', 'seconds'),
                    coreCpuSeconds: med(k, 'coreCpuSeconds'),
                    coreAllocatedMb: med(k, 'coreAllocatedMb'),
                    providerCpuSeconds: med(k, 'providerCpuSeconds'),
                    hostCpuSeconds: med(k, 'hostCpuSeconds'),
                    hostRequestsPerResource: med(k, 'hostRequestsPerResource'),
                  },
                ]),
              ),
            }
          : {}),
      };
    }
    process.stderr.write(`bench: N=${n} done\n`);
  }
  results.loadAverage.end = (await import('node:os')).loadavg();
  const table = markdown(results);
  mkdirSync(path.join(root, 'bench-results'), { recursive: true });
  const stamp = results.machine.date.replace(/[:.]/g, '-');
  writeFileSync(path.join(root, 'bench-results', `bench-${stamp}.json`), JSON.stringify(results, null, 2));
  writeFileSync(path.join(root, 'bench-results', `bench-${stamp}.md`), table);
  process.stdout.write(table);
}

function markdown(r) {
  const f = (x, d = 2) => x.toFixed(d);
  let t = `Start-up (median of ${r.startup.reps}, spawn → handshake line, as core starts the installed executable; \`node -e\` floor ${f(r.startup.nodeMs, 0)} ms):\n\n| variant | ms | ratio to \`node -e\` | idle peak RSS (MB) |\n|---|---|---|---|\n`;
  for (const v of r.startup.variants) t += `| ${v.name} | ${f(v.ms, 0)} | ${f(v.ratio)} | ${f(v.idlePeakRssMb, 0)} |\n`;
  t += '\n';
  if (Object.keys(r.scale).length === 0) return t;
  const la = (xs) => xs.map((x) => f(x)).join(' ');
  t += `Scale runs with the ${r.form === 'wrapper' ? 'wrapper' : 'single executable'} installed; load average ${la(r.loadAverage.start)} at the start, ${la(r.loadAverage.end)} at the end.\n\n`;
  t +=
    "Times are medians (reps column). CPU columns: provider = all provider launches of the command (per launch: their mean); Host = the reference Host process; core = the CLI itself (its children's CPU minus the providers'), for ours / null_resource / terraform_data; core alloc = what the CLI's Go heap allocated (from its GC trace: the measure of core's work that does not move with the machine's load).\n\n";
  t +=
    '| N | command | reps | ours (s) | null (s) | terraform_data (s) | ours ÷ null | ours ÷ terraform_data | Host requests / resource | provider CPU ours / null (s) | CPU per launch ours / null (ms) | Host CPU (s) | core CPU ours / null / terraform_data (s) | core ours ÷ null | core alloc ours / null / terraform_data (MB) | core alloc ours ÷ null | provider peak RSS ours / null (MB) | launches ours / null |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n';
  for (const [n, steps] of Object.entries(r.scale)) {
    for (const [s, x] of Object.entries(steps)) {
      t += `| ${n} | ${s} | ${x.reps} | ${f(x.oursSeconds)} | ${f(x.nullSeconds)} | ${f(x.floorSeconds)} | **${f(x.nullRatio)}** | ${f(x.ratio)} | ${f(x.hostRequestsPerResource)} | ${f(x.providerCpuSeconds)} / ${f(x.nullProviderCpuSeconds)} | ${f(x.providerCpuMsPerLaunch, 0)} / ${f(x.nullProviderCpuMsPerLaunch, 0)} | ${f(x.hostCpuSeconds)} | ${f(x.coreCpuSeconds)} / ${f(x.nullCoreCpuSeconds)} / ${f(x.floorCoreCpuSeconds)} | ${f(x.coreCpuSeconds / x.nullCoreCpuSeconds)} | ${f(x.coreAllocatedMb, 0)} / ${f(x.nullCoreAllocatedMb, 0)} / ${f(x.floorCoreAllocatedMb, 0)} | ${f(x.coreAllocatedMb / x.nullCoreAllocatedMb)} | ${f(x.providerPeakRssMb, 0)} / ${f(x.nullProviderPeakRssMb, 0)} | ${x.providerLaunches} / ${x.nullProviderLaunches} |\n`;
    }
  }
  t +=
    '\nOurs, CPU of a launch up to its handshake line (median of the launches of each command, then of the commands): ' +
    Object.entries(r.scale)
      .map(([n, steps]) => `N = ${n}: ${f(median(Object.values(steps).map((x) => x.providerHandshakeCpuMs)), 0)} ms`)
      .join(', ') +
    '\nOurs, time from a launch to its first RPC (same medians): ' +
    Object.entries(r.scale)
      .map(([n, steps]) => `N = ${n}: ${f(median(Object.values(steps).map((x) => x.providerFirstRpcMs)), 0)} ms`)
      .join(', ') +
    '\n';
  if (Object.values(r.scale).some((steps) => steps.apply.baseline)) {
    t += `\nBaseline (--baseline ${r.baseline}${
      Object.keys(r.baselineEnv ?? {}).length
        ? `, with ${Object.entries(r.baselineEnv)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`
        : ''
    }): another build of ours against the same Host, in the same alternation. Time ÷ null_resource's in the same run.\n\n`;
    t +=
      '| N | command | ours ÷ null | baseline ÷ null | ours ÷ baseline | core CPU ours / baseline (s) | core alloc ours / baseline (MB) | provider CPU ours / baseline (s) | Host CPU ours / baseline (s) |\n|---|---|---|---|---|---|---|---|---|\n';
    for (const [n, steps] of Object.entries(r.scale)) {
      for (const [s, x] of Object.entries(steps)) {
        const b = x.baseline;
        t += `| ${n} | ${s} | **${f(x.nullRatio)}** | ${f(b.nullRatio)} | ${f(x.oursSeconds / b.seconds)} | ${f(x.coreCpuSeconds)} / ${f(b.coreCpuSeconds)} | ${f(x.coreAllocatedMb, 0)} / ${f(b.coreAllocatedMb, 0)} | ${f(x.providerCpuSeconds)} / ${f(b.providerCpuSeconds)} | ${f(x.hostCpuSeconds)} / ${f(b.hostCpuSeconds)} |\n`;
      }
    }
  }
  if (Object.values(r.scale).some((steps) => steps.apply.stateFloor)) {
    const names = Object.keys(STATE_FLOOR_VARIANTS);
    t += `\nState floor (--state-floor): a Go provider with our schema, identity and state that does no work (scripts/bench-state-floor), its package padded to the bytes of ours; and the same without parts of our state. \`node floor\`: the same no-op provider on our own Node stack (scripts/bench-node-floor.ts: our transport, handshake and msgpack), installed as ours is in the wrapper form; \`node floor + Host\`: it making the Host requests ours makes (requests per resource shown), through our Host client, against its own Host. Time ÷ null_resource's in the same run; core CPU and allocation as above.\n\n`;
    t += `| N | command | ours ÷ null | ${names.join(' | ')} | core alloc: ours / ${names.join(' / ')} / null (MB) |\n|---|---|---|${'---|'.repeat(names.length)}---|\n`;
    for (const [n, steps] of Object.entries(r.scale)) {
      for (const [s, x] of Object.entries(steps)) {
        const v = Object.values(x.stateFloor);
        t += `| ${n} | ${s} | **${f(x.nullRatio)}** | ${v.map((y) => `${f(y.nullRatio)} (${f(y.seconds)} s${y.hostRequestsPerResource ? `, ${f(y.hostRequestsPerResource)} requests` : ''})`).join(' | ')} | ${f(x.coreAllocatedMb, 0)} / ${v.map((y) => f(y.coreAllocatedMb, 0)).join(' / ')} / ${f(x.nullCoreAllocatedMb, 0)} |\n`;
      }
    }
  }
  const sizes = Object.keys(r.scale).map(Number);
  if (sizes.length > 1) {
    // The target is stated for 100 → 1000; other size lists fall back to smallest → largest.
    const [a, b] = sizes.includes(100) && sizes.includes(1000) ? [100, 1000] : [Math.min(...sizes), Math.max(...sizes)];
    t +=
      `\nGrowth ${a} → ${b} (×${b / a} resources): ` +
      STEPS.map(
        (s) =>
          `${s} ×${f(r.scale[b][s].oursSeconds / r.scale[a][s].oursSeconds, 1)} (null ×${f(r.scale[b][s].nullSeconds / r.scale[a][s].nullSeconds, 1)}, floor ×${f(r.scale[b][s].floorSeconds / r.scale[a][s].floorSeconds, 1)})`,
      ).join(', ') +
      '\n';
  }
  return t;
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${e.stack ?? e}\n`);
  process.exit(1);
});
