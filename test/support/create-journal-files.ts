// Where the provider's create journal keeps its entries (docs/design.md, "One owner per Host
// resource"): <data dir>/takoform/pending-creates/<scope>/<name key>.<attempt>.json. Tests that
// look at the journal from outside read it through this one function.
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Every file in a working directory's create journal, of all scopes, as full paths. */
export function journalFiles(workDir: string, dataDir = '.terraform'): string[] {
  const root = path.join(workDir, dataDir, 'takoform', 'pending-creates');
  try {
    return readdirSync(root).flatMap((scope) => readdirSync(path.join(root, scope)).map((f) => path.join(root, scope, f)));
  } catch {
    return []; // no journal yet
  }
}
