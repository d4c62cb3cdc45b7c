// What the lifecycle needs from the rest of the provider: the Host client (only the routes a
// resource lifecycle uses, so tests can hand it a fake), the provider's default space, the
// create journal, and the exact availability probe.
import type { FormRef, OperationsApi, ResourcesApi } from '../../../host-client/index.js';
import type { Diagnostic } from '../../diag/diagnostics.js';
import type { CreateJournal } from '../create-journal.js';
import type { PreparedBindings } from './prepared-bindings.js';

export interface LifecycleClient {
  readonly resources: Pick<ResourcesApi, 'prepare' | 'apply' | 'read' | 'delete'>;
  readonly operations: Pick<OperationsApi, 'get' | 'waitForResult'>;
}

export interface HostAccess {
  /** Undefined when the provider configuration is not known yet (e.g. during validate). */
  readonly client: LifecycleClient | undefined;
  readonly defaultSpace: string | undefined;
  /** True while the provider configuration itself still has unknown values. */
  readonly configUnknown: boolean;
  /** Creates sent but maybe not recorded in state (see create-journal.ts). */
  readonly journal: CreateJournal;
  /** Prepare answers kept from plan for the apply-time re-plan (prepared-bindings.ts). */
  readonly preparedBindings: PreparedBindings;
  /** The exact availability probe; undefined when the Form can be used for `operation`. */
  /** Resources this process has planned to create in this run (`kind\0space\0name`). */
  readonly plannedCreates: Set<string>;
  /**
   * Resources this process has planned from a prior state in this run (`kind\0space\0name`):
   * a create of one of those names is the new half of a replacement, not a second owner.
   */
  readonly plannedPriors: Set<string>;
  /** Resources this process has planned to replace in this run (`kind\0space\0name` → their type). */
  readonly plannedReplacements: Map<string, string>;
  /** Types the configuration names in replace_triggered_by lists (replace-triggers.ts); read once. */
  replaceTriggeredTypes(): ReadonlySet<string>;
  checkForm(typeName: string, formRef: FormRef, space: string, operation: 'create' | 'update'): Promise<Diagnostic | undefined>;
}
