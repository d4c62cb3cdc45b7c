// Cross-checks loaded packages and contract documents against a frozen conformance corpus
// (generic.json, format takoform.core-artifact-corpus@v1) when one sits in an ancestor folder of
// a --packages directory: a listed package must have the listed packageDigest, a listed Interface
// or Binding document the listed schemaDigest. Files the corpus does not list are not judged here.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isJsonObject } from '../common/json-value.js';
import { FormPackageError } from './packages.js';

const CORPUS_FILE = 'generic.json';
const CORPUS_FORMAT = 'takoform.core-artifact-corpus@v1';
const SEARCH_DEPTH = 4;

/** Absolute file path -> expected digest, from every corpus found above `directories`. */
export function corpusDigests(directories: readonly string[]): Map<string, string> {
  const expected = new Map<string, string>();
  const seen = new Set<string>();
  for (const directory of directories) {
    let folder = path.resolve(directory);
    for (let depth = 0; depth < SEARCH_DEPTH; depth++) {
      const file = path.join(folder, CORPUS_FILE);
      if (!seen.has(file) && existsSync(file)) {
        seen.add(file);
        readCorpus(file, folder, expected);
      }
      const parent = path.dirname(folder);
      if (parent === folder) break;
      folder = parent;
    }
  }
  return expected;
}

/** Refuses a file whose digest differs from what a corpus lists for it. */
export function assertCorpusDigest(expected: ReadonlyMap<string, string>, file: string, actual: string): void {
  const listed = expected.get(path.resolve(file));
  if (listed !== undefined && listed !== actual) {
    throw new FormPackageError(`${file}: digest ${actual} differs from ${listed}, which the frozen corpus lists for it`);
  }
}

function readCorpus(file: string, root: string, expected: Map<string, string>): void {
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return;
  }
  if (!isJsonObject(document) || document.format !== CORPUS_FORMAT || !Array.isArray(document.snapshotInputs)) return;
  for (const input of document.snapshotInputs) {
    if (!isJsonObject(input)) continue;
    for (const [member, digestMember] of [
      ['packages', 'packageDigest'],
      ['interfaces', 'schemaDigest'],
      ['bindings', 'schemaDigest'],
    ] as const) {
      const entries = input[member];
      if (!Array.isArray(entries)) continue;
      for (const entry of entries) {
        if (isJsonObject(entry) && typeof entry.path === 'string' && typeof entry[digestMember] === 'string') {
          expected.set(path.resolve(root, entry.path), entry[digestMember] as string);
        }
      }
    }
  }
}
