// The provider's state for one process: the catalog-derived resource types, the settings
// from ConfigureProvider and the Host client built from them.
import { formatFormRef, HostClient, sameFormRef, type FormRef } from '../../host-client/index.js';
import type { LoadedCatalog } from '../catalog/catalog-file.js';
import { unverifiedPackageWarning } from '../catalog/catalog-hints.js';
import { errorDiag, type Diagnostic } from '../diag/diagnostics.js';
import type { Logger } from '../logging.js';
import { CreateJournal } from '../resource/create-journal.js';
import { PreparedBindings } from '../resource/lifecycle/prepared-bindings.js';
import { spaceIdDiagnostic } from '../resource/address-validation.js';
import { FormResourceType } from '../resource/form-resource-type.js';
import { GENERIC_TYPE_NAME, GenericResourceKind } from '../resource/generic-resource.js';
import type { HostAccess } from '../resource/lifecycle/host-access.js';
import { typesInReplaceTriggers } from '../resource/lifecycle/replace-triggers.js';
import type { ResourceKind } from '../resource/resource-kind.js';
import type { TfObject } from '../values/tf-value.js';
import type { ArtifactHost } from '../artifact/artifact-resource.js';
import { connectionDiagnostic } from './connection-check.js';
import { readProviderSettings } from './provider-config.js';

export const PROVIDER_VERSION = '0.2.0';

export class TakoformProvider implements HostAccess, ArtifactHost {
  readonly resourceTypes = new Map<string, FormResourceType>();
  client: HostClient | undefined;
  defaultSpace: string | undefined;
  configUnknown = false;
  /** Creates sent but maybe not recorded in state; scoped to the configured endpoint. */
  journal = CreateJournal.disabled();
  /** Prepare answers kept from plan for the apply-time re-plan; scoped like the journal. */
  preparedBindings = PreparedBindings.disabled();
  private readonly eagerDiagnostics: Diagnostic[] = [];
  /** Aborted by StopProvider: ends every wait on a Host Operation (see stop()). */
  private readonly stopping = new AbortController();
  private deferred: (() => Diagnostic[]) | undefined;

  /**
   * Diagnostics about how the provider was loaded (catalog problems), shown on the schema
   * requests. Some are computed on first use only: they read the configuration's files, which
   * a launch core never asks for schemas need not pay for before its handshake.
   */
  get loadDiagnostics(): Diagnostic[] {
    if (this.deferred) {
      const compute = this.deferred;
      this.deferred = undefined;
      this.eagerDiagnostics.push(...compute());
    }
    return this.eagerDiagnostics;
  }

  /** Adds load diagnostics computed when first asked for (see loadDiagnostics). */
  deferLoadDiagnostics(compute: () => Diagnostic[]): void {
    const before = this.deferred;
    this.deferred = () => [...(before ? before() : []), ...compute()];
  }
  readonly plannedCreates = new Set<string>();
  readonly plannedPriors = new Set<string>();
  readonly plannedReplacements = new Map<string, string>();
  private triggeredTypes: Set<string> | undefined;

  replaceTriggeredTypes(): ReadonlySet<string> {
    this.triggeredTypes ??= typesInReplaceTriggers();
    return this.triggeredTypes;
  }

  constructor(
    readonly catalog: LoadedCatalog,
    readonly logger: Logger,
  ) {
    for (const form of catalog.catalog.forms) {
      try {
        this.resourceTypes.set(form.typeName, new FormResourceType(form));
      } catch (e) {
        this.eagerDiagnostics.push(errorDiag('Invalid catalog entry', `${form.typeName} from ${catalog.source}: ${(e as Error).message}`));
      }
    }
    logger.info('catalog loaded', { source: catalog.source, resource_types: this.resourceTypes.size });
  }

  async configure(config: TfObject | null, terraformVersion: string): Promise<Diagnostic[]> {
    const settings = readProviderSettings(config);
    this.defaultSpace = settings.space;
    this.configUnknown = settings.unknown;
    if (settings.unknown) {
      this.logger.info('provider configuration not known yet; Host calls wait for apply', { terraform_version: terraformVersion });
      return [];
    }
    if (!settings.endpoint || !settings.token) {
      return [
        errorDiag(
          'Missing Host connection settings',
          `The takoform provider needs an endpoint and a token: set \`endpoint\` and \`token\` in the provider block, or TAKOFORM_ENDPOINT and TAKOFORM_TOKEN. Missing: ${[
            !settings.endpoint && 'endpoint',
            !settings.token && 'token',
          ]
            .filter(Boolean)
            .join(', ')}.`,
        ),
      ];
    }
    if (settings.space !== undefined) {
      const bad = spaceIdDiagnostic('The provider', settings.space, ['space']);
      if (bad) return [bad];
    }
    this.logger.addSecret(settings.token);
    try {
      this.client = new HostClient({
        endpoint: settings.endpoint,
        token: settings.token,
        userAgent: `terraform-provider-takoform/${PROVIDER_VERSION} (${terraformVersion || 'unknown core'})`,
        ...(settings.caFile ? { caFile: settings.caFile } : {}),
        stopSignal: this.stopping.signal,
        onExchange: (ev) =>
          this.logger.debug('host request', {
            route: ev.route,
            method: ev.method,
            path: ev.path,
            status: ev.status,
            request_id: ev.requestId,
            duration_ms: ev.durationMs,
            attempt: ev.attempt,
          }),
      });
    } catch (e) {
      return [errorDiag('Invalid provider configuration', `${(e as Error).message}`, ['endpoint'])];
    }
    // Discovery now, not at the first resource: a wrong endpoint or token is one error for
    // the command. The client keeps the document, so later calls do not fetch it again.
    try {
      await this.client.discover();
    } catch (e) {
      const bad = connectionDiagnostic(e, settings.endpoint);
      if (bad) return [bad];
      this.logger.warn('discovery failed; resource calls retry it', { error: (e as Error).message });
    }
    this.journal = CreateJournal.inDataDir(originOf(settings.endpoint));
    this.preparedBindings = PreparedBindings.inDataDir(originOf(settings.endpoint));
    this.logger.info('provider configured', {
      endpoint: settings.endpoint,
      space: settings.space,
      terraform_version: terraformVersion,
      journal_workspace: this.journal.currentScope.workspace,
    });
    return [];
  }

  /** The Host client's artifact routes (takoform_artifact), once configured. */
  artifacts(): HostClient['artifacts'] | undefined {
    return this.client?.artifacts;
  }

  /** The generic kind, which checks a spec offline when the catalog has its exact Form. */
  private readonly generic = new GenericResourceKind((ref) => this.typedFor(ref));

  /** Every resource kind this provider serves: the catalog's typed types and takoform_resource. */
  kinds(): ResourceKind[] {
    return [...this.resourceTypes.values(), this.generic];
  }

  /** The kind of a resource type name core sends; an unknown name is a bug (core only sends ours). */
  kind(typeName: string): ResourceKind {
    if (typeName === GENERIC_TYPE_NAME) return this.generic;
    return this.typed(typeName);
  }

  typed(typeName: string): FormResourceType {
    const rt = this.resourceTypes.get(typeName);
    if (!rt)
      throw new Error(
        `unknown resource type ${typeName}; the catalog (${this.catalog.source}) defines ${[...this.resourceTypes.keys()].join(', ') || 'no types'}`,
      );
    return rt;
  }

  private readonly warnedUnverified = new Set<string>();

  /**
   * Said once per type and process, at plan (where an unknown immutable field or untyped
   * outputs change what the plan means): the type's catalog entry has no verified package.
   */
  planWarnings(typeName: string): Diagnostic[] {
    const rt = this.resourceTypes.get(typeName);
    if (!rt || rt.form.packageVerified || this.warnedUnverified.has(typeName)) return [];
    this.warnedUnverified.add(typeName);
    return [unverifiedPackageWarning(rt.form, this.catalog)];
  }

  typedFor(ref: FormRef): FormResourceType | undefined {
    for (const rt of this.resourceTypes.values()) if (sameFormRef(rt.form.formRef, ref)) return rt;
    return undefined;
  }

  typeNameOf(ref: FormRef): string | undefined {
    return this.typedFor(ref)?.typeName;
  }

  private readonly availability = new Map<string, Promise<Diagnostic | undefined>>();

  /**
   * The exact availability probe for a Form in use (once per Form and space per process):
   * a Form the Host no longer has, or no longer lets this principal use, is a clear error
   * naming the exact FormRef instead of an obscure failure later.
   */
  checkForm(typeName: string, ref: FormRef, space: string, operation: 'create' | 'update'): Promise<Diagnostic | undefined> {
    const client = this.client;
    if (!client) return Promise.resolve(undefined);
    const form = formatFormRef(ref);
    const key = `${form}\u0000${space}\u0000${operation}`;
    let pending = this.availability.get(key);
    if (!pending) {
      pending = client.forms.probe(ref, space).then(
        (entry) => {
          if (!entry) {
            return errorDiag(
              'Form not available on the Host',
              `${typeName} is the Form ${form}, which the Host at this endpoint does not offer in space "${space}". Install that exact Form on the Host, or run \`terraform-provider-takoform catalog lock\` against this Host and change the configuration to a Form it has.`,
            );
          }
          const missing = [
            !entry.installed && 'not installed',
            !entry.executable && 'not executable now',
            !entry.availableToPrincipal && 'not available to this principal',
            operation === 'create' && !entry.activated && 'not activated for new resources',
            !entry.operations.includes(operation) && `without the ${operation} operation`,
          ].filter((x): x is string => !!x);
          return missing.length
            ? errorDiag(
                'Form not usable on the Host',
                `The Host offers ${form} in space "${space}" but ${missing.join(', ')}, so ${typeName} cannot ${operation} there. Ask the Host operator.`,
              )
            : undefined;
        },
        () => undefined, // a failed probe is not a verdict; prepare reports the real problem
      );
      this.availability.set(key, pending);
    }
    return pending;
  }

  /**
   * Core asked us to stop (StopProvider: the user interrupted the CLI). Core then waits for
   * the calls in flight; those waiting on a Host Operation end now and record it (pending.ts)
   * rather than wait out their `timeouts`. Requests already sent still finish.
   */
  stop(): void {
    this.stopping.abort();
  }

  /**
   * Core shut the provider down normally (GRPCController.Shutdown): every create it was
   * answered is in core's hands now. Not called when the CLI died or the process is killed.
   */
  closedByCore(): void {
    try {
      this.journal.closeNormally();
    } catch (e) {
      this.logger.warn('could not tidy the create journal', { error: (e as Error).message });
    }
    try {
      this.preparedBindings.closeNormally();
    } catch (e) {
      // only costs the re-plan a prepare of its own
      this.logger.warn('could not keep the prepare answers for apply', { error: (e as Error).message });
    }
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}

/** The endpoint as one string per Host (the client refuses paths, so the origin is the Host). */
function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return endpoint;
  }
}
