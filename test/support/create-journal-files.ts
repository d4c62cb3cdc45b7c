// Where the provider's create journal keeps its entries (docs/design.md, "One owner per Host
// resource"): <data dir>/takoform/pending-creates/<scope>/, one `<pid>-<random>.log` per
// process (a JSON line per create) and `<name key>.<attempt>.json` for an entry that outlived
// its process. Tests that look at the journal from outside read it through these functions.
import { readdirSync, readFileSync } from 'node:fs';
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

/** Every entry those files hold, parsed; a line or file torn by a kill (never sent) is left out. */
export function journalEntries(workDir: string, dataDir = '.terraform'): Record<string, unknown>[] {
  const parse = (text: string): Record<string, unknown>[] => {
    try {
      return [JSON.parse(text) as Record<string, unknown>];
    } catch {
      return [];
    }
  };
  return journalFiles(workDir, dataDir).flatMap((file) => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return []; // removed meanwhile
    }
    return file.endsWith('.log') ? text.split('\n').flatMap(parse) : file.endsWith('.json') ? parse(text) : [];
  });
}
