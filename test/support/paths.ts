// Where tests find the built executables, the tools and the shared reference data.
import { existsSync } from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(process.cwd());
export const SHARED_DATA = path.resolve(REPO_ROOT, '..', 'shared', 'data');
export const GENERIC_FORMS = path.join(SHARED_DATA, 'takoform/conformance/takoform-v1/generic-host/external-family');
export const PROVIDER_BUNDLE = path.join(REPO_ROOT, 'dist/provider/provider.cjs');
/** The single executable (Node embedded) that `npm run build` makes for this platform. */
export const SEA_EXECUTABLE = path.join(
  REPO_ROOT,
  'dist/sea',
  `${process.platform}_${process.arch === 'x64' ? 'amd64' : process.arch}`,
  'terraform-provider-takoform',
);
/** The catalog lock of examples/quickstart: the typed resource types of the reference Forms. */
export const QUICKSTART_LOCK = path.join(REPO_ROOT, 'examples/quickstart/.takoform.lock.json');
export const HOST_BUNDLE = path.join(REPO_ROOT, 'dist/host/takoform-host.cjs');
export const TOFU = path.join(REPO_ROOT, '.tools/bin/tofu');
export const TERRAFORM = path.join(REPO_ROOT, '.tools/bin/terraform');

/** The CLIs the end-to-end suites run through, and how to get each. */
export const CLIS = {
  tofu: { binary: TOFU, install: 'run `bash scripts/install-tofu` first' },
  terraform: { binary: TERRAFORM, install: 'run `bash scripts/install-terraform` first' },
} as const;
export type CliName = keyof typeof CLIS;

/** A missing tool is a failure, not a skip: say how to get it. */
export function requireFile(file: string, howToGetIt: string): string {
  if (!existsSync(file)) throw new Error(`${file} is missing; ${howToGetIt}`);
  return file;
}
