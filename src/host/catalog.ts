// The installed catalog: the verified packages, keyed by the exact 4-tuple FormRef, each with
// its compiled desired-spec checker. Read-only after start-up.
import { describeFormRef, formRefKey, type FormRef } from './form-ref.js';
import type { FormDefinition, LifecycleCapability } from './form-definition.js';
import { unservableReason } from './installability.js';
import { collectRefusal, FormPackageError, type LoadedFormPackage } from './packages.js';
import { findRelationDeclarations, type RelationDeclaration } from './relations/relation-declarations.js';
import { OutputChecker } from './output-checker.js';
import { DesiredSpecChecker } from './spec-validation.js';
import { findSlotArrays } from './standard-services.js';

export interface InstalledForm {
  readonly formRef: FormRef;
  /** Audit evidence only: never identity, query or fence (wire reference §6.1). */
  readonly packageDigest: string;
  readonly definition: FormDefinition;
  readonly desiredSpec: DesiredSpecChecker;
  /** Pointer patterns of the standard-service slot arrays in the desiredSchema. */
  readonly standardServiceSlotArrays: readonly string[];
  /** The relations (references and typed bindings) the desiredSchema declares. */
  readonly relations: readonly RelationDeclaration[];
  /** Present exactly when the Definition declares an outputSchema. */
  readonly outputs: OutputChecker | undefined;
}

export class FormCatalog {
  private readonly byExactRef = new Map<string, InstalledForm>();
  private readonly forms: InstalledForm[] = [];

  constructor(forms: Iterable<InstalledForm>) {
    for (const form of forms) {
      const key = formRefKey(form.formRef);
      if (this.byExactRef.has(key)) continue;
      this.byExactRef.set(key, form);
      this.forms.push(form);
    }
  }

  /**
   * Compiles and installs verified packages (see loadFormPackages for the refusals). Throws
   * FormPackageError for a Definition this Host cannot serve faithfully.
   */
  static install(packages: readonly LoadedFormPackage[], refusals?: string[]): FormCatalog {
    // With `refusals`, each Definition that cannot be served is recorded there and left out.
    if (refusals === undefined) return new FormCatalog(packages.map(installForm));
    return new FormCatalog(packages.flatMap((loaded) => collectRefusal(refusals, () => installForm(loaded)) ?? []));
  }

  all(): readonly InstalledForm[] {
    return this.forms;
  }

  exact(ref: FormRef): InstalledForm | undefined {
    return this.byExactRef.get(formRefKey(ref));
  }

  byGroupKind(group: string, kind: string): InstalledForm[] {
    return this.forms.filter((form) => form.formRef.apiVersion === group && form.formRef.kind === kind);
  }

  /** The one Definition of a group/kind at a version (unique by the install-time refusal). */
  byVersion(group: string, kind: string, definitionVersion: string): InstalledForm | undefined {
    return this.byGroupKind(group, kind).find((form) => form.formRef.definitionVersion === definitionVersion);
  }
}

function installForm(loaded: LoadedFormPackage): InstalledForm {
  const refuse = (reason: string): never => {
    throw new FormPackageError(`${loaded.directory}: cannot install ${describeFormRef(loaded.formRef)}: ${reason}`);
  };
  let relations: RelationDeclaration[];
  try {
    relations = findRelationDeclarations(loaded.definition.desiredSchema);
  } catch (error) {
    return refuse((error as Error).message);
  }
  const reason = unservableReason(loaded.definition, relations);
  if (reason !== undefined) refuse(reason);
  let desiredSpec: DesiredSpecChecker;
  let outputs: OutputChecker | undefined;
  try {
    desiredSpec = new DesiredSpecChecker(loaded.definition);
    outputs = loaded.definition.outputSchema === undefined ? undefined : new OutputChecker(loaded.definition);
  } catch (error) {
    return refuse(`a schema does not compile as JSON Schema 2020-12: ${(error as Error).message}`);
  }
  return {
    formRef: loaded.formRef,
    packageDigest: loaded.packageDigest,
    definition: loaded.definition,
    desiredSpec,
    standardServiceSlotArrays: findSlotArrays(loaded.definition.desiredSchema),
    relations,
    outputs,
  };
}

export function hasCapability(form: InstalledForm, capability: LifecycleCapability): boolean {
  return form.definition.lifecycleCapabilities.includes(capability);
}
