// Everything a route handler may use, assembled once by startHost.
import type { TokenTable } from './auth.js';
import type { FormCatalog } from './catalog.js';
import type { HostStore, ResourceAddress } from './store/store.js';

export interface HostContext {
  readonly catalog: FormCatalog;
  readonly store: HostStore;
  readonly tokens: TokenTable;
  /** Standard-service protocols this Host satisfies (for every tenant, for now). */
  readonly satisfiableStandardServices: ReadonlySet<string>;
  readonly now: () => Date;
  /** Mints the uid of a new incarnation; must never repeat. */
  readonly mintUid: (address: ResourceAddress) => string;
  readonly nextRequestId: () => string;
  /** One line of operator log (stderr in the CLI). */
  readonly log: (line: string) => void;
}
