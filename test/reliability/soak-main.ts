// `npm run soak`: every reliability scenario with large counts, then one table: what ran,
// faults by kind, kills, races, fuzz cases and the invariant violations (must be 0), with
// the seed. Writes soak-results/soak-<time>.json and .md beside the printed table.
// Options: --seed N --cycles N --kills N --host-restarts N --race-rounds N --fuzz-runs N
//          --multi-host-rounds N --multi-host-kills N --multi-host-tofu N --only a,b
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runFaultSoak } from './fault-soak.js';
import { runHostileInput } from './hostile-input.js';
import { runKills } from './kills.js';
import { runMultiHost } from './multi-host.js';
import { runRaces } from './races.js';
import type { ReliabilityReport } from './report.js';
import { runSecretsScan } from './secrets.js';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};

async function main(): Promise<void> {
  const seed = Number(arg('seed', String(Date.now() % 1_000_000)));
  const only = arg('only', 'soak,kills,races,multi-host,fuzz,secrets').split(',');
  const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
  const started = Date.now();
  const reports: ReliabilityReport[] = [];
  const scenarios: Array<[string, () => Promise<ReliabilityReport>]> = [
    ['soak', () => runFaultSoak({ seed, log, cycles: Number(arg('cycles', '200')) })],
    ['kills', () => runKills({ seed, log, trials: Number(arg('kills', '50')), hostRestarts: Number(arg('host-restarts', '5')) })],
    ['races', () => runRaces({ seed, log, rounds: Number(arg('race-rounds', '20')) })],
    [
      'multi-host',
      () =>
        runMultiHost({
          seed,
          log,
          raceRounds: Number(arg('multi-host-rounds', '20')),
          contenders: 10,
          killRounds: Number(arg('multi-host-kills', '10')),
          tofuRounds: Number(arg('multi-host-tofu', '5')),
        }),
    ],
    ['fuzz', () => runHostileInput({ seed, log, fuzzRuns: Number(arg('fuzz-runs', '500')) })],
    ['secrets', () => runSecretsScan({ seed, log })],
  ];
  for (const [name, run] of scenarios) {
    if (!only.includes(name)) continue;
    log(`${name}: starting`);
    try {
      reports.push(await run());
    } catch (e) {
      // A scenario that cannot run is a failure of the soak, reported like a violation.
      reports.push({ scenario: name, counters: {}, violations: [`could not run: ${(e as Error).stack ?? String(e)}`], notes: [] });
    }
  }
  const minutes = (Date.now() - started) / 60_000;
  const table = render(reports, seed, minutes);
  const dir = path.resolve('soak-results');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  writeFileSync(path.join(dir, `soak-${stamp}.json`), JSON.stringify({ seed, minutes, node: process.version, reports }, null, 2));
  writeFileSync(path.join(dir, `soak-${stamp}.md`), table);
  process.stdout.write(table);
  process.exitCode = reports.some((r) => r.violations.length > 0) ? 1 : 0;
}

function render(reports: ReliabilityReport[], seed: number, minutes: number): string {
  const violations = reports.reduce((s, r) => s + r.violations.length, 0);
  let t = `Reliability soak — seed ${seed}, ${minutes.toFixed(1)} min, Node ${process.version}; invariant violations: **${violations}**\n\n`;
  t += '| scenario | what ran | violations |\n|---|---|---|\n';
  for (const r of reports) {
    const ran = Object.entries(r.counters)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    t += `| ${r.scenario} | ${ran || '—'} | ${r.violations.length} |\n`;
  }
  for (const r of reports) {
    for (const n of r.notes) t += `\n- ${r.scenario}: ${n}`;
    for (const v of r.violations) t += `\n- VIOLATION (${r.scenario}): ${v.split('\n')[0]}`;
  }
  return `${t}\n\nReproduce: \`npm run soak -- --seed ${seed}\`\n`;
}

main().catch((e) => {
  process.stderr.write(`soak failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
