// CDKTF bindings from the locked catalog: generated offline by the provider's `cdktf`
// subcommand, compiled with TypeScript into a small CDKTF program, synthesized to HCL JSON,
// which real tofu then initializes and validates with the real provider.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, PROVIDER_BUNDLE, QUICKSTART_LOCK, REPO_ROOT } from '../support/paths.js';
import { createWorkspace } from '../support/tofu.js';

describe('CDKTF bindings', () => {
  // Inside the repository (ignored by git) so that the program resolves cdktf and constructs
  // from the project's node_modules, as a CDKTF project would from its own.
  const base = path.join(REPO_ROOT, '.tools');
  let dir: string;
  let host: HostProcess;
  beforeAll(async () => {
    mkdirSync(base, { recursive: true });
    dir = mkdtempSync(path.join(base, 'cdktf-test-'));
    // A CommonJS program, as CDKTF's own templates are (the repository itself is ESM).
    writeFileSync(path.join(dir, 'package.json'), '{ "type": "commonjs" }\n');
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence'), path.join(GENERIC_FORMS, 'range-counter')]);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('generates bindings offline from the catalog', () => {
    const out = execFileSync(process.execPath, [PROVIDER_BUNDLE, 'cdktf', '--catalog', QUICKSTART_LOCK, '--out', path.join(dir, 'gen')], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: dir, TF_CLI_CONFIG_FILE: path.join(dir, 'none.tfrc') },
      encoding: 'utf8',
    });
    expect(out).toMatch(/wrote CDKTF bindings/);
    for (const f of [
      'provider/index.ts',
      'range-sequence/index.ts',
      'range-counter/index.ts',
      'resource/index.ts',
      'artifact/index.ts',
      'data-takoform-forms/index.ts',
    ]) {
      expect(existsSync(path.join(dir, 'gen/providers/takoform', f)), f).toBe(true);
    }
  });

  it('compiles a CDKTF program against them and synthesizes HCL JSON that tofu validates', async () => {
    writeFileSync(
      path.join(dir, 'main.ts'),
      `import { App, TerraformOutput, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { TakoformProvider } from './gen/providers/takoform/provider';
import { RangeSequence } from './gen/providers/takoform/range-sequence';
import { RangeCounter } from './gen/providers/takoform/range-counter';

class Demo extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new TakoformProvider(this, 'takoform', {});
    const seq = new RangeSequence(this, 'seq', { name: 'cdk-seq', lower: 1, upper: 3, mode: 'fast' });
    new RangeCounter(this, 'counter', { name: 'cdk-counter', lower: seq.lower, upper: seq.upper });
    new TerraformOutput(this, 'uid', { value: seq.uid });
  }
}

const app = new App({ outdir: ${JSON.stringify(path.join(dir, 'cdktf.out'))} });
new Demo(app, 'demo');
app.synth();
`,
    );
    execFileSync(
      process.execPath,
      [
        path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'),
        '--module',
        'commonjs',
        '--target',
        'es2020',
        '--skipLibCheck',
        '--strict',
        '--esModuleInterop',
        '--outDir',
        path.join(dir, 'js'),
        path.join(dir, 'main.ts'),
      ],
      { cwd: dir, stdio: 'pipe' },
    );
    execFileSync(process.execPath, [path.join(dir, 'js/main.js')], { cwd: dir, stdio: 'pipe' });
    const stack = path.join(dir, 'cdktf.out/stacks/demo');
    const synthesized = JSON.parse(readFileSync(path.join(stack, 'cdk.tf.json'), 'utf8'));
    expect(synthesized.terraform.required_providers.takoform.source).toBe('registry.takoform.dev/takoform/takoform');
    expect(Object.keys(synthesized.resource)).toEqual(expect.arrayContaining(['takoform_range_sequence', 'takoform_range_counter']));

    cpSync(QUICKSTART_LOCK, path.join(stack, '.takoform.lock.json'));
    const ws = createWorkspace(stack, host);
    await ws.ok(['init', '-input=false', '-no-color']);
    const validated = await ws.ok(['validate', '-no-color']);
    expect(validated.stdout).toMatch(/The configuration is valid/);
    const plan = await ws.ok(['plan', '-input=false', '-no-color']);
    expect(plan.stdout).toMatch(/2 to add, 0 to change, 0 to destroy/);
  });
});
