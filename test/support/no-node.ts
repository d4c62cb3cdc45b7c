// An environment in which no `node` can be found: a PATH of one empty directory. Core runs the
// provider executable itself, so this is what a machine without Node looks like to it.
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export function pathWithoutNode(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'takoform-no-node-path-'));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Throws when any directory of `pathValue` holds a `node`: the test would prove nothing. */
export function assertNoNode(pathValue: string): void {
  for (const dir of pathValue.split(':')) {
    if (dir !== '' && existsSync(path.join(dir, 'node'))) throw new Error(`PATH entry ${dir} has a node in it`);
  }
}
