// `terraform-provider-takoform catalog lock`: builds the catalog snapshot from a live Host
// (`/forms` for the installed exact FormRefs and their operations, `/form-definitions` for
// the desired schema), keeping every name already locked so a type is never renamed or
// re-pointed silently.
import { HostClient } from '../../host-client/index.js';
import { formatFormRef, sameFormRef } from '../../host-client/wire-types.js';
import { canonicalJson } from '../../common/digest.js';
import { formAttributeClashes } from '../schema/form-mapping.js';
import { defaultTypeName, snakeCase } from '../schema/names.js';
import { readFormPackages } from './form-package.js';
import { CATALOG_FORMAT_VERSION, CatalogError, CLASH_REMEDY, type Catalog, type CatalogForm } from './catalog-file.js';

export interface LockOptions {
  readonly endpoint: string;
  readonly token: string;
  readonly space: string;
  /** PEM file of extra CA certificates for an https Host (TAKOFORM_CA_FILE). */
  readonly caFile?: string;
  /** The existing lock, whose names are kept. */
  readonly previous?: Catalog;
  /** Form Packages, or folders of them, whose verified Definitions enrich the matching entries. */
  readonly packageDirs?: readonly string[];
  /** Told about packages that match no Form on the Host. */
  readonly warn?: (message: string) => void;
}

export async function lockCatalog(options: LockOptions): Promise<Catalog> {
  const client = new HostClient({
    endpoint: options.endpoint,
    token: options.token,
    userAgent: 'terraform-provider-takoform/catalog-lock',
    ...(options.caFile ? { caFile: options.caFile } : {}),
  });
  try {
    const previous = options.previous;
    const packages = readFormPackages(options.packageDirs ?? []);
    const available = (await client.forms.list({ space: options.space })).filter((f) => f.definitionKnown && f.availableToPrincipal);
    const forms: CatalogForm[] = [];
    for (const entry of available) {
      const def = await client.forms.definition(entry.identity.formRef, options.space);
      const pkg = packages.find((p) => sameFormRef(p.formRef, entry.identity.formRef));
      if (pkg && canonicalJson(pkg.desiredSchema) !== canonicalJson(def.desiredSchema)) {
        throw new CatalogError(`the Host serves a different desiredSchema for ${formatFormRef(pkg.formRef)} than its verified package`);
      }
      const clashes = formAttributeClashes({ desiredSchema: def.desiredSchema, ...(pkg?.outputSchema ? { outputSchema: pkg.outputSchema } : {}) });
      if (clashes.length > 0) {
        // Locking it would lose one of the two values; leaving it out keeps every other type.
        options.warn?.(`${formatFormRef(entry.identity.formRef)} is left out of the catalog: ${clashes.join('; ')}. ${CLASH_REMEDY}`);
        continue;
      }
      forms.push({
        typeName: '',
        formRef: entry.identity.formRef,
        ...(entry.identity.packageDigest ? { packageDigest: entry.identity.packageDigest } : {}),
        title: def.displayName,
        ...(def.description ? { description: def.description } : {}),
        operations: [...entry.operations].sort(),
        immutableFields: pkg ? [...pkg.immutableFields] : [],
        ...(pkg?.role ? { role: pkg.role } : {}),
        ...(pkg?.outputSchema ? { outputSchema: pkg.outputSchema } : {}),
        ...(pkg && pkg.constraints.length > 0 ? { constraints: [...pkg.constraints] } : {}),
        ...(pkg ? { packageVerified: true } : {}),
        desiredSchema: def.desiredSchema,
      });
    }
    for (const p of packages) {
      if (!forms.some((f) => sameFormRef(f.formRef, p.formRef)))
        options.warn?.(`package ${formatFormRef(p.formRef)} matches no Form this Host offers in space ${options.space}`);
    }
    return { formatVersion: CATALOG_FORMAT_VERSION, forms: assignTypeNames(forms, previous?.forms ?? []) };
  } finally {
    await client.close();
  }
}

/**
 * Naming rule: `takoform_<snake kind>`; when several installed Forms share a kind, each gets
 * `takoform_<snake kind>_<group label>` if the groups differ, plus `_v<major>_<minor>_<patch>`
 * when definition versions differ. Names already locked are reused for the same FormRef.
 */
export function assignTypeNames(forms: readonly CatalogForm[], previous: readonly CatalogForm[]): CatalogForm[] {
  const taken = new Map<string, CatalogForm>();
  const result: CatalogForm[] = [];
  const pending: CatalogForm[] = [];
  for (const form of forms) {
    const old = previous.find((p) => sameFormRef(p.formRef, form.formRef));
    if (old) {
      taken.set(old.typeName, form);
      result.push({ ...form, typeName: old.typeName });
    } else pending.push(form);
  }
  const byKind = new Map<string, CatalogForm[]>();
  for (const f of [...forms]) byKind.set(f.formRef.kind, [...(byKind.get(f.formRef.kind) ?? []), f]);
  for (const form of pending) {
    const siblings = byKind.get(form.formRef.kind) ?? [form];
    let name = defaultTypeName(form.formRef.kind);
    if (siblings.length > 1) {
      if (new Set(siblings.map((s) => s.formRef.apiVersion)).size > 1) name += `_${snakeCase(form.formRef.apiVersion.split('.')[0]!)}`;
      const sameGroup = siblings.filter((s) => s.formRef.apiVersion === form.formRef.apiVersion);
      if (sameGroup.length > 1) name += `_v${form.formRef.definitionVersion.replace(/[^0-9a-z]+/gi, '_').toLowerCase()}`;
    }
    if (taken.has(name)) {
      throw new CatalogError(
        `cannot name ${formatFormRef(form.formRef)}: ${name} is already used by ${formatFormRef(taken.get(name)!.formRef)}; rename it in the lock file`,
      );
    }
    taken.set(name, form);
    result.push({ ...form, typeName: name });
  }
  return result;
}
