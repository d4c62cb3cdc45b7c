// `terraform-provider-takoform catalog lock`: re-locks the catalog from a Host, prints what
// changed against the previous lock, and refuses (leaving the file untouched) to remove or
// re-point a type or to lose package metadata unless explicitly allowed. `--check` writes
// nothing and fails when the lock is not current, for CI.
import { flagValue, flagValues } from '../command-flags.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CATALOG_FILE_NAME, formatCatalog, parseCatalog, type Catalog } from './catalog-file.js';
import { LOCK_COMMAND } from './catalog-hints.js';
import { diffCatalogs, formatDiff, lossesOf } from './lock-diff.js';
import { lockCatalog } from './lock.js';

export interface LockCommandIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
}

export const ALLOW_REMOVALS = '--allow-removals';
export const ALLOW_METADATA_LOSS = '--allow-metadata-loss';
export const CHECK = '--check';

export async function catalogLockCommand(args: readonly string[], io: LockCommandIo): Promise<number> {
  const endpoint = flagValue(args, '--endpoint') ?? io.env.TAKOFORM_ENDPOINT;
  const space = flagValue(args, '--space') ?? io.env.TAKOFORM_SPACE;
  const token = io.env.TAKOFORM_TOKEN;
  const file = path.resolve(flagValue(args, '--out') ?? CATALOG_FILE_NAME);
  const check = args.includes(CHECK);
  if (!endpoint || !space || !token) {
    io.err('catalog lock needs --endpoint (or TAKOFORM_ENDPOINT), --space (or TAKOFORM_SPACE) and TAKOFORM_TOKEN\n');
    return 1;
  }
  try {
    const existing = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    const previous: Catalog | undefined = existing === undefined ? undefined : parseCatalog(existing, file);
    const caFile = io.env.TAKOFORM_CA_FILE || undefined; // same trust as the provider itself
    const next = await lockCatalog({
      endpoint,
      token,
      space,
      ...(caFile ? { caFile } : {}),
      ...(previous ? { previous } : {}),
      packageDirs: flagValues(args, '--package'),
      warn: (m) => io.err(`warning: ${m}\n`),
    });
    const text = formatCatalog(next);
    const diff = diffCatalogs(previous, next);
    io.out(`${previous ? `changes against ${file}` : `new lock ${file}`}:\n${indent(formatDiff(diff))}`);

    const unverified = next.forms
      .filter((f) => !f.packageVerified)
      .map((f) => f.typeName)
      .sort();
    if (unverified.length) {
      io.err(
        `warning: no verified Form Package for ${unverified.join(', ')}: the lock has no role, immutable fields, output schema or constraints for ${unverified.length === 1 ? 'it' : 'them'}, ` +
          'so a change to an immutable field is known to need a replacement only when the plan asks the Host (not offline), and `outputs` is not typed (only outputs_json). ' +
          'Pass --package DIR (a Form Package, or a folder of packages) to add them.\n',
      );
    }

    const losses = lossesOf(diff);
    const refused = [
      ...(args.includes(ALLOW_REMOVALS) ? [] : losses.removals.map((l) => `${l} (allow with ${ALLOW_REMOVALS})`)),
      ...(args.includes(ALLOW_METADATA_LOSS) ? [] : losses.metadata.map((l) => `${l} (allow with ${ALLOW_METADATA_LOSS})`)),
    ];
    if (check) {
      if (existing === text) {
        io.out(`${file} is current\n`);
        return 0;
      }
      io.err(
        `${file} is not current: \`${LOCK_COMMAND}\` would ${existing === undefined ? 'create it' : 'change it as listed above'}${refused.length ? `, and would refuse:\n${refused.map((l) => `  - ${l}\n`).join('')}` : '\n'}`,
      );
      return 1;
    }
    if (refused.length) {
      io.err(`catalog lock refused; ${file} is unchanged:\n${refused.map((l) => `  - ${l}\n`).join('')}`);
      return 1;
    }
    if (existing === text) {
      io.out(`${file} is unchanged (${next.forms.length} types)\n`);
      return 0;
    }
    writeFileSync(file, text);
    io.out(`wrote ${file}: ${next.forms.map((f) => f.typeName).join(', ') || 'no Forms'}\n`);
    return 0;
  } catch (e) {
    io.err(`catalog lock failed: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

function indent(text: string): string {
  return text.replace(/^(?=.)/gm, '  ');
}
