// Every example under examples/ is really applied, through both CLIs, the way CI users run
// them: fmt -check, init, validate, apply, a clean re-plan, destroy. Each example's committed
// catalog lock must equal what `catalog lock` writes against the Host it is made for.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostApi } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, REPO_ROOT } from '../support/paths.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

interface ExampleRecipe {
  /** Form packages of the Host the example is written for (under the shared generic Forms, unless absolute). */
  readonly packages: readonly string[];
  /** Out-of-band state the example expects (e.g. something to import). */
  setup?(api: HostApi): Promise<void>;
}

const RANGE_GAUGE = {
  apiVersion: 'resources.publisher.example',
  kind: 'RangeGauge',
  definitionVersion: '0.1.0',
  schemaDigest: JSON.parse(readFileSync(path.join(GENERIC_FORMS, 'range-gauge/package-index.json'), 'utf8')).formRef.schemaDigest as string,
};

const EXAMPLES: Record<string, ExampleRecipe> = {
  quickstart: { packages: ['range-sequence', 'range-counter'] },
  // The bundle-shaped Forms are repository fixtures (test/fixtures/bundle-forms/README.md).
  artifacts: { packages: ['worker-bundle', 'static-asset-bundle', 'sqlite-migration-set'].map((d) => path.join(REPO_ROOT, 'test/fixtures/bundle-forms', d)) },
  platform: {
    packages: ['range-sequence', 'counter-reservation', 'range-counter', 'range-gauge'],
    setup: async (api) => {
      await api.put(RANGE_GAUGE, 'staging-legacy-gauge', { lower: 0, upper: 100 });
    },
  },
};

/** Planned creates per example and CLI, to compare the two CLIs afterwards. */
const plannedCreates = new Map<string, Map<string, unknown>>();

for (const [example, recipe] of Object.entries(EXAMPLES)) {
  describe.each(['tofu', 'terraform'] as const)(`examples/${example} through %s`, (cli) => {
    let host: HostProcess;
    let ws: TofuWorkspace;
    const packageDir = (p: string): string => (path.isAbsolute(p) ? p : path.join(GENERIC_FORMS, p));
    const packageArgs = recipe.packages.flatMap((p) => ['--package', packageDir(p)]);

    beforeAll(async () => {
      host = await startHostProcess(recipe.packages.map(packageDir));
      ws = createWorkspace(path.join(REPO_ROOT, 'examples', example), host, 'demo', cli);
      await recipe.setup?.(new HostApi(host.url, host.token));
    });
    afterAll(async () => {
      await host?.stop();
    });

    it('is formatted, and its catalog lock is what catalog lock writes', async () => {
      expect((await ws.run(['fmt', '-check', '-recursive', '-no-color'])).code).toBe(0);
      const committed = readFileSync(path.join(ws.dir, '.takoform.lock.json'), 'utf8');
      const lock = await ws.provider(['catalog', 'lock', ...packageArgs]);
      expect(lock.code, lock.stderr).toBe(0);
      expect(readFileSync(path.join(ws.dir, '.takoform.lock.json'), 'utf8')).toBe(committed);
    });

    it('locks the provider from the mirror, initializes against that lock, and validates', async () => {
      await ws.ok(['init', '-input=false', '-no-color']); // installs modules, which providers lock needs
      const lock = await ws.ok([
        'providers',
        'lock',
        '-no-color',
        `-fs-mirror=${ws.mirror}`,
        `-platform=${process.platform}_${process.arch === 'x64' ? 'amd64' : process.arch}`,
        'registry.takoform.dev/takoform/takoform',
      ]);
      expect(lock.stdout + lock.stderr).toMatch(/Obtained registry\.takoform\.dev\/takoform\/takoform checksums/);
      expect(readFileSync(path.join(ws.dir, '.terraform.lock.hcl'), 'utf8')).toMatch(
        /provider "registry\.takoform\.dev\/takoform\/takoform"[\s\S]*version\s+= "0\.2\.0"[\s\S]*"h1:[A-Za-z0-9+/=]+"/,
      );
      await ws.ok(['init', '-input=false', '-no-color']);
      await ws.ok(['validate', '-no-color']);
    });

    it('applies, re-plans with no changes, and destroys', async () => {
      await ws.ok(['plan', '-input=false', '-no-color', '-out', 'create.tfplan']);
      const shown = JSON.parse((await ws.ok(['show', '-json', 'create.tfplan'])).stdout) as {
        resource_changes: { address: string; change: { actions: string[]; after: unknown; after_unknown: unknown } }[];
      };
      // Objects that already exist (imports) carry Host-specific uids and times; compare creates.
      const creates = shown.resource_changes.filter((c) => c.change.actions.includes('create'));
      expect(creates.length).toBeGreaterThan(0);
      const changes = new Map(creates.map((c) => [c.address, { actions: c.change.actions, after: c.change.after, after_unknown: c.change.after_unknown }]));
      plannedCreates.set(`${example}/${cli}`, changes);
      await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color', 'create.tfplan']);
      const replan = await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color']);
      expect(replan.code, replan.stdout).toBe(0);
      await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
    });
  });
}

describe('both CLIs', () => {
  it('plan the same changes for every example', () => {
    for (const example of Object.keys(EXAMPLES)) {
      const tofu = plannedCreates.get(`${example}/tofu`);
      const terraform = plannedCreates.get(`${example}/terraform`);
      expect(tofu && terraform, example).toBeTruthy();
      expect([...tofu!.keys()].sort()).toEqual([...terraform!.keys()].sort());
      for (const [address, change] of tofu!) expect(change, `${example}: ${address}`).toEqual(terraform!.get(address));
    }
  });
});
