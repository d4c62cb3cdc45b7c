// The catalog workflow through the real executable and real tofu: `catalog lock` is
// deterministic and keeps names; a Form the Host no longer has is a clear plan error.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, REPO_ROOT } from '../support/paths.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

describe('catalog lock and availability', () => {
  let host: HostProcess;
  let ws: TofuWorkspace;
  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence'), path.join(GENERIC_FORMS, 'range-counter')]);
    ws = createWorkspace(path.join(REPO_ROOT, 'examples/quickstart'), host);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('writes the same bytes twice and matches the committed example lock', async () => {
    const lockFile = path.join(ws.dir, '.takoform.lock.json');
    const committed = readFileSync(lockFile, 'utf8');
    const packages = ['--package', path.join(GENERIC_FORMS, 'range-sequence'), '--package', path.join(GENERIC_FORMS, 'range-counter')];
    expect((await ws.provider(['catalog', 'lock', ...packages])).code).toBe(0);
    const first = readFileSync(lockFile, 'utf8');
    expect((await ws.provider(['catalog', 'lock', ...packages])).code).toBe(0);
    expect(readFileSync(lockFile, 'utf8')).toBe(first);
    expect(first).toBe(committed);
    expect(JSON.parse(first).forms[0]).toMatchObject({
      typeName: 'takoform_range_counter',
      immutableFields: ['/externalServices'],
      role: 'identity',
      packageVerified: true,
    });
  });

  it('refuses at plan, naming the exact FormRef, when the Host does not have the locked Form', async () => {
    const lockFile = path.join(ws.dir, '.takoform.lock.json');
    const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
    const seq = lock.forms.find((f: { typeName: string }) => f.typeName === 'takoform_range_sequence');
    seq.formRef.definitionVersion = '0.9.0';
    writeFileSync(lockFile, JSON.stringify(lock, null, 2));
    await ws.ok(['init', '-input=false', '-no-color']);
    const r = await ws.run(['plan', '-input=false', '-no-color']);
    expect(r.code).toBe(1);
    const text = r.stderr.replace(/\s+/g, ' ');
    expect(text).toMatch(/Form not available on the Host/);
    expect(text).toMatch(/RangeSequence@0\.9\.0/);
    expect(text).toMatch(/catalog lock/);
  });
});
