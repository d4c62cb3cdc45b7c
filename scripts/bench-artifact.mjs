#!/usr/bin/env node
// The artifact memory benchmark (not a timed test): `tofu apply` of one takoform_artifact
// holding a single large file (default 200 MiB of random bytes, fresh per run so the Host
// never holds it yet), against the reference Host, and the provider's peak RSS. Each provider
// process tofu starts writes its own peak RSS, VmHWM (TAKOFORM_PROVIDER_STATS_FILE, see
// src/plugin/process-stats.ts: getrusage's figure would include core's resident set at the
// launch); a run's figure is the largest of them. Target: under 150 MB.
// Usage: npm run bench:artifact -- [--mib 200] [--runs 3]
import { execFileSync, spawn } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const MIB = Number(arg('mib', '200'));
const RUNS = Number(arg('runs', '3'));
const TOFU = path.join(root, '.tools/bin/tofu');
const PROVIDER = path.join(root, 'dist/provider/provider.cjs');
const HOST = path.join(root, 'dist/host/takoform-host.cjs');
const TOKEN = 'bench-artifact-token-0123456789';
const TARGET_MB = 150;
// The Host needs one Form package to start; the artifact itself needs none.
const PACKAGE = path.join(root, 'test/fixtures/bundle-forms/static-asset-bundle');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function run(command, args, cwd, env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

async function startHost(dir) {
  writeFileSync(path.join(dir, 'tokens.json'), JSON.stringify({ tokens: [{ token: TOKEN, tenant: 'bench', principal: 'bench' }] }));
  const args = [HOST, 'serve', '--listen', '127.0.0.1:0', '--db', path.join(dir, 'host.db'), '--tokens', path.join(dir, 'tokens.json'), '--packages', PACKAGE];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
  const url = await new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`Host exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /listening on (https?:\/\/\S+)/.exec(line);
      if (m) resolve(m[1]);
    });
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

/** Writes `mib` MiB of fresh random bytes, 1 MiB at a time (this script's memory stays small too). */
function writeRandomFile(file, mib) {
  const chunk = Buffer.alloc(1024 * 1024);
  const fd = openSync(file, 'w');
  for (let i = 0; i < mib; i++) writeSync(fd, randomFillSync(chunk));
  closeSync(fd);
}

for (const f of [TOFU, PROVIDER, HOST]) if (!existsSync(f)) throw new Error(`${f} is missing: run npm run build (and scripts/setup for tofu)`);
const base = mkdtempSync(path.join(tmpdir(), 'bench-artifact-'));
const results = [];
try {
  const mirror = path.join(base, 'mirror');
  execFileSync(process.execPath, [PROVIDER, 'install', '--wrapper', '--mirror', mirror], { stdio: 'pipe' });
  const cliConfig = path.join(base, 'tofurc');
  writeFileSync(
    cliConfig,
    `provider_installation {\n  filesystem_mirror {\n    path    = ${JSON.stringify(mirror)}\n    include = ["registry.takoform.dev/*/*"]\n  }\n  direct {\n    exclude = ["registry.takoform.dev/*/*"]\n  }\n}\n`,
  );
  for (let i = 1; i <= RUNS; i++) {
    const dir = path.join(base, `run-${i}`);
    mkdirSync(path.join(dir, 'content'), { recursive: true });
    const host = await startHost(dir);
    try {
      writeRandomFile(path.join(dir, 'content/large.bin'), MIB);
      writeFileSync(
        path.join(dir, 'main.tf'),
        `terraform {\n  required_providers {\n    takoform = { source = "registry.takoform.dev/takoform/takoform", version = "0.2.0" }\n  }\n}\nprovider "takoform" {}\nresource "takoform_artifact" "large" {\n  kind       = "StaticAssetBundle"\n  source_dir = "content"\n}\n`,
      );
      const stats = path.join(dir, 'stats.jsonl');
      const env = {
        PATH: process.env.PATH,
        HOME: base,
        TF_CLI_CONFIG_FILE: cliConfig,
        TF_IN_AUTOMATION: '1',
        CHECKPOINT_DISABLE: '1',
        TAKOFORM_ENDPOINT: host.url,
        TAKOFORM_TOKEN: TOKEN,
        TAKOFORM_SPACE: 'bench',
      };
      const init = await run(TOFU, ['init', '-input=false', '-no-color'], dir, env);
      if (init.code !== 0) throw new Error(`init failed:\n${init.out}`);
      const started = performance.now();
      const apply = await run(TOFU, ['apply', '-auto-approve', '-input=false', '-no-color'], dir, { ...env, TAKOFORM_PROVIDER_STATS_FILE: stats });
      const seconds = (performance.now() - started) / 1000;
      if (apply.code !== 0) throw new Error(`apply failed:\n${apply.out}`);
      const lines = readFileSync(stats, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const uploader = lines.find((l) => (l.rpcs?.ApplyResourceChange ?? 0) > 0);
      const peakMb = Math.max(...lines.map((l) => l.maxRssKb)) / 1024;
      results.push({ run: i, peakMb, uploaderPeakMb: uploader ? uploader.maxRssKb / 1024 : NaN, launches: lines.length, applySeconds: seconds });
      console.error(`run ${i}: provider peak RSS ${peakMb.toFixed(1)} MB (${lines.length} launches), apply ${seconds.toFixed(1)} s`);
    } finally {
      host.stop();
      rmSync(path.join(dir, 'content'), { recursive: true, force: true });
    }
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
const med = median(results.map((r) => r.peakMb));
console.log(`\ntakoform_artifact upload of one ${MIB} MiB file, tofu apply, ${RUNS} runs (fresh bytes and Host each run):\n`);
console.log('| run | provider peak RSS (MB, largest launch) | uploading launch (MB) | launches | apply (s) |\n|---|---|---|---|---|');
for (const r of results) console.log(`| ${r.run} | ${r.peakMb.toFixed(1)} | ${r.uploaderPeakMb.toFixed(1)} | ${r.launches} | ${r.applySeconds.toFixed(1)} |`);
console.log(`\nmedian provider peak RSS: ${med.toFixed(1)} MB (target < ${TARGET_MB} MB): ${med < TARGET_MB ? 'met' : 'NOT met'}`);
process.exitCode = med < TARGET_MB ? 0 : 1;
