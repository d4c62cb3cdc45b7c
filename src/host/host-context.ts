// Everything a route handler may use, assembled once by startHost.
import type { TokenTable } from './auth.js';
import type { FormCatalog } from './catalog.js';
import type { ContractCatalog } from './contract-documents.js';
import type { TenantGate } from './http/tenant-gate.js';
import type { HostStore, ResourceAddress } from './store/store.js';

export interface HostContext {
  readonly catalog: FormCatalog;
  /** Interface and Binding Definitions loaded beside the packages. */
  readonly contracts: ContractCatalog;
  readonly store: HostStore;
  readonly tokens: TokenTable;
  /** Standard-service protocols this Host satisfies (for every tenant, for now). */
  readonly satisfiableStandardServices: ReadonlySet<string>;
  /** Kinds ("Kind" or "group/Kind") whose mutations always answer 202 with an Operation. */
  readonly asyncForms: ReadonlySet<string>;
  /** How many polls of a fresh Operation answer "pending" before its mutation commits. */
  readonly operationPendingPolls: number;
  /** This Host process among all processes on the database: the holder name of its Operation leases. */
  readonly instanceId: string;
  /** How long an Operation lease lasts without renewal; a dead holder's Operations wait this long. */
  readonly operationLeaseMs: number;
  /** The most JSON values one request body may hold (json-body.ts says why). */
  readonly maxJsonValues: number;
  /** Lets each tenant have one large-body request worked on at a time (http/tenant-gate.ts). */
  readonly largeBodies: TenantGate;
  /** Whether the Takoform-Test-* headers and the test admin routes are honoured (--enable-test-switches). */
  readonly testSwitches: boolean;
  /** Idempotency scopes whose first request is still executing (resource_busy for a duplicate). */
  readonly inFlight: Set<string>;
  readonly now: () => Date;
  /** Mints the uid of a new incarnation; must never repeat. */
  readonly mintUid: (address: ResourceAddress) => string;
  /** Mints an Operation id (op_…) or upload id (up_…); must never repeat. */
  readonly mintHandle: (prefix: 'op' | 'up') => string;
  readonly nextRequestId: () => string;
  /** One line of operator log (stderr in the CLI). */
  readonly log: (line: string) => void;
}
