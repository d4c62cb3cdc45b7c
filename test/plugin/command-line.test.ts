// The provider's commands for people refuse a command line they cannot mean, before doing
// anything: an unknown flag, a stray argument, and a flag whose value is missing (an empty
// shell variable in `--endpoint $EP --space team` once made `team` the "unexpected argument").
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PROVIDER_BUNDLE } from '../support/paths.js';

const run = (...args: string[]) => spawnSync(process.execPath, [PROVIDER_BUNDLE, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });

describe('command-line checks of terraform-provider-takoform', () => {
  it('names the flag whose value is missing, instead of taking the next flag as it', () => {
    const r = run('catalog', 'lock', '--endpoint', '--space', 'team');
    expect(r.status).toBe(2);
    expect(r.stderr + r.stdout).toMatch(/catalog lock: --endpoint needs a value/);
    const last = run('docs', '--catalog');
    expect(last.status).toBe(2);
    expect(last.stderr + last.stdout).toMatch(/docs: --catalog needs a value/);
  });

  it('still refuses an unknown flag and a stray argument, and accepts --flag=value', () => {
    expect(run('catalog', 'lock', '--spaces', 'x').stderr).toMatch(/unknown flag --spaces/);
    expect(run('catalog', 'lock', 'extra').stderr).toMatch(/unexpected argument "extra"/);
    // Well-formed but incomplete: the command itself explains what it needs (exit 1, not 2).
    expect(run('catalog', 'lock', '--space=team').status).toBe(1);
  });
});
