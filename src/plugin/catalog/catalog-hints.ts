// What the provider tells a user about the catalog itself: no catalog, a catalog that lacks a
// type the configuration uses, an entry without package metadata. Core checks resource types
// against the provider schema before it calls the provider for them, so a missing type never
// reaches us; and Terraform drops GetProviderSchema warnings when the provider block is empty
// or absent and nothing else of ours is used (seen with Terraform 1.11), while every core
// shows its errors. So the provider reads the resource types
// the configuration declares (the root module and the modules `init` recorded) at start-up, and
// a type missing from the catalog becomes a GetProviderSchema error that names the file and
// the command: the run would fail on that type anyway, now it says why.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { errorDiag, warningDiag, type Diagnostic } from '../diag/diagnostics.js';
import { formatFormRef } from '../../host-client/wire-types.js';
import { CATALOG_FILE_NAME, CLASH_REMEDY, type CatalogForm, type FormWithoutType, type LoadedCatalog } from './catalog-file.js';

/** The command a person types; the docs print the same (README, docs/resources.md). */
export const LOCK_COMMAND = 'terraform-provider-takoform catalog lock';

/** Types the provider serves without a catalog entry. */
const CATALOG_FREE_TYPES = new Set(['takoform_resource', 'takoform_artifact']);

/** The exact command to (re)write the catalog this process looked for, with what env knows. */
export function lockCommandFor(loaded: Pick<LoadedCatalog, 'file'>, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const out = path.resolve(cwd, CATALOG_FILE_NAME) === loaded.file ? '' : ` --out ${loaded.file}`;
  return `${LOCK_COMMAND} --endpoint ${env.TAKOFORM_ENDPOINT || 'URL'} --space ${env.TAKOFORM_SPACE || 'SPACE'} --package DIR${out}`;
}

function whereItLooked(loaded: LoadedCatalog, env: NodeJS.ProcessEnv): string {
  return env.TAKOFORM_CATALOG ? `${loaded.file} (named by TAKOFORM_CATALOG)` : `${loaded.file} (set TAKOFORM_CATALOG to use another file)`;
}

const HOW = (loaded: LoadedCatalog, env: NodeJS.ProcessEnv) =>
  `Write it from the Host, in the root module directory, with TAKOFORM_TOKEN set:\n\n  ${lockCommandFor(loaded, env)}\n\n` +
  '--package names your Form Packages (a package directory or a folder of them); it adds immutable fields and typed outputs. takoform_resource, takoform_artifact and the data sources work without a catalog.';

/** Diagnostics about the catalog as a whole, given the resource types the configuration uses. */
export function catalogDiagnostics(loaded: LoadedCatalog, used: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv = process.env): Diagnostic[] {
  const withoutType = loaded.catalog.withoutType ?? [];
  return [...withoutType.map((form) => withoutTypeDiagnostic(form, used.get(form.typeName), loaded)), ...wholeCatalogDiagnostics(loaded, used, env)];
}

/**
 * A catalog entry that cannot be a typed type (catalog-file.ts): an error where the
 * configuration uses it, with the way to keep its resources under takoform_resource without
 * destroying them (tried on a state the earlier release wrote); a warning elsewhere.
 */
function withoutTypeDiagnostic(form: FormWithoutType, usedAt: string | undefined, loaded: LoadedCatalog): Diagnostic {
  const ref = form.formRef;
  const what = `${form.typeName} in ${loaded.file} (${formatFormRef(ref)}) is not a resource type: ${form.clashes.join('; ')}. ` + CLASH_REMEDY;
  if (!usedAt) return warningDiag('Form without a typed resource type', `${what} Lock the catalog again to leave the entry out.`);
  return errorDiag(
    'Form without a typed resource type',
    `${what}\n\nThe configuration uses it (${usedAt}). To keep its resources, take each one out of the state without destroying it (core cannot read a state of a type the provider does not serve, so a \`removed\` block cannot do it), and import it under takoform_resource:\n\n` +
      `  terraform state rm ${form.typeName}.NAME     (or tofu state rm)\n\n` +
      `  import {\n    to = takoform_resource.NAME\n    id = "${ref.apiVersion}/${ref.kind}/${ref.definitionVersion}/${ref.schemaDigest}/SPACE/RESOURCE_NAME"\n  }\n\n` +
      `with a takoform_resource block of that FormRef whose spec sets each property by its JSON name; the Host resource is untouched. Then lock the catalog again: ${lockCommandFor(loaded)}`,
  );
}

function wholeCatalogDiagnostics(loaded: LoadedCatalog, used: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv): Diagnostic[] {
  const known = new Set(loaded.catalog.forms.map((f) => f.typeName));
  const withoutType = new Set((loaded.catalog.withoutType ?? []).map((f) => f.typeName));
  const missing = [...used].filter(([type]) => !CATALOG_FREE_TYPES.has(type) && !known.has(type) && !withoutType.has(type));
  if (missing.length) {
    // Core would have suggested a close name for a typo; keep that help.
    const list = missing.map(([type, where]) => `${type} (${where}${closest(type, known) ? `; did you mean ${closest(type, known)}?` : ''})`).join(', ');
    const what = loaded.found
      ? `The Form catalog ${whereItLooked(loaded, env)} has no ${missing.length === 1 ? 'type' : 'types'} ${list}`
      : `The provider looked for ${whereItLooked(loaded, env)} and found none, so it has no resource type ${list}`;
    return [errorDiag(loaded.found ? 'Resource type not in the Form catalog' : 'No Form catalog', `${what}.\n\n${HOW(loaded, env)}`)];
  }
  if (!loaded.found)
    return [
      warningDiag(
        'No Form catalog',
        `The provider looked for ${whereItLooked(loaded, env)} and found none, so it offers no typed resource types.\n\n${HOW(loaded, env)}`,
      ),
    ];
  if (loaded.catalog.forms.length === 0)
    return [
      warningDiag('Empty Form catalog', `${whereItLooked(loaded, env)} has no Forms, so the provider offers no typed resource types.\n\n${HOW(loaded, env)}`),
    ];
  return [];
}

/** The warning for a typed type whose catalog entry has no verified Form Package. */
export function unverifiedPackageWarning(form: CatalogForm, loaded: LoadedCatalog): Diagnostic {
  return warningDiag(
    'Catalog entry without a verified Form Package',
    `${form.typeName} in ${loaded.file} was locked without its Form Package, so the provider does not know its role, immutable fields, output schema or constraints: ` +
      "`validate` cannot tell that a change to an immutable field needs a replacement (the plan learns it from the Host's prepare, and warns), and `outputs` is not typed (read outputs_json). " +
      `Re-lock with the package: ${lockCommandFor(loaded)}`,
  );
}

/**
 * Resource types the configuration declares, type → first "file:line": the root module's
 * *.tf and *.tf.json, and each module directory `init` recorded in modules.json. Best effort
 * (block comments are skipped); it only decides how a failure is explained.
 */
export function resourceTypesInConfiguration(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of configurationFiles(cwd, env)) {
    const shown = path.relative(cwd, file) || path.basename(file);
    try {
      const text = readFileSync(file, 'utf8');
      for (const [type, line] of file.endsWith('.json') ? typesInJson(text) : typesInHcl(text)) if (!found.has(type)) found.set(type, `${shown}:${line}`);
    } catch {
      // an unreadable or malformed file is core's to report
    }
  }
  return found;
}

/** The configuration's files: *.tf and *.tf.json of the root module and of each module `init` recorded. */
export function configurationFiles(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): string[] {
  const files: string[] = [];
  for (const dir of moduleDirs(cwd, env)) {
    try {
      for (const name of readdirSync(dir)
        .filter((n) => n.endsWith('.tf') || n.endsWith('.tf.json'))
        .sort())
        files.push(path.join(dir, name));
    } catch {
      // a module directory that is gone: core reports it
    }
  }
  return files;
}

function moduleDirs(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const dirs = [cwd];
  const manifest = path.join(cwd, env.TF_DATA_DIR || '.terraform', 'modules', 'modules.json');
  if (existsSync(manifest)) {
    try {
      const doc = JSON.parse(readFileSync(manifest, 'utf8')) as { Modules?: { Dir?: unknown }[] };
      for (const m of doc.Modules ?? []) if (typeof m.Dir === 'string') dirs.push(path.resolve(cwd, m.Dir));
    } catch {
      // no manifest we can read: the root module only
    }
  }
  return [...new Set(dirs)];
}

function typesInHcl(text: string): [string, number][] {
  // Blank out block comments, keeping line breaks so line numbers stay right.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '));
  const out: [string, number][] = [];
  code.split('\n').forEach((line, i) => {
    const m = /^\s*resource\s+"?(takoform_[a-z0-9_]+)"?[\s{]/.exec(line);
    if (m) out.push([m[1]!, i + 1]);
  });
  return out;
}

function typesInJson(text: string): [string, number][] {
  const doc = JSON.parse(text) as { resource?: unknown };
  const blocks = Array.isArray(doc.resource) ? doc.resource : [doc.resource];
  return blocks
    .flatMap((b) => (typeof b === 'object' && b !== null ? Object.keys(b) : []))
    .filter((t) => t.startsWith('takoform_'))
    .map((t): [string, number] => [t, 1]);
}

/** A known name within a small edit distance of `name` (a typo), or undefined. */
function closest(name: string, known: ReadonlySet<string>): string | undefined {
  // At most 2 edits, and fewer for short names, so `takoform_a` is not "corrected" to `takoform_b`.
  const suffix = name.replace(/^takoform_/, '');
  let best: string | undefined;
  let bestDistance = Math.min(2, Math.floor(suffix.length / 4)) + 1;
  for (const candidate of known) {
    const d = editDistance(suffix, candidate.replace(/^takoform_/, ''));
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}
