// startHost: verifies and installs the Form packages, opens the store, and serves Host API v1
// over node:http. Plain HTTP is lawful only on a loopback origin (wire reference §2.1), so any
// other listen address is refused until TLS is supported.
import { createServer, type Server } from 'node:http';
import { isIP } from 'node:net';
import { TokenTable, type TokenEntry } from './auth.js';
import { FormCatalog } from './catalog.js';
import { isStandardServiceProtocol } from './grammar.js';
import type { HostContext } from './host-context.js';
import { createRequestListener } from './http/dispatch.js';
import { createRequestIdSource } from './http/request-id.js';
import { loadFormPackages } from './packages.js';
import { randomUid } from './resources/counters.js';
import { SqliteHostStore } from './store/sqlite-store.js';
import type { ResourceAddress } from './store/store.js';

export type { TokenEntry } from './auth.js';

export interface HostOptions {
  /** Loopback host (127.0.0.0/8, ::1 or localhost) and port; port 0 picks a free one. */
  listen: { host: string; port: number };
  /** SQLite database file, created if missing; ':memory:' for a throwaway Host. */
  dbPath: string;
  /** Package directories, or folders whose subdirectories are packages. */
  packageDirs: string[];
  tokens: TokenEntry[];
  /** Standard-service protocols this Host satisfies; every other protocol is unsatisfiable. */
  satisfiableStandardServices?: string[];
  /** Operator log lines (one per request, plus internal errors). Silent when omitted. */
  log?: (line: string) => void;
  /** Test seam: the clock for condition transition times. */
  now?: () => Date;
  /** Test seam: mints uids (default `res_` + random); must never repeat a uid. */
  mintUid?: (address: ResourceAddress) => string;
}

export interface RunningHost {
  /** Origin of the Host, e.g. http://127.0.0.1:41234 (discovery is at {url}/.well-known/takoform/v1). */
  readonly url: string;
  /** Stops listening, ends open connections and closes the database. Safe to call twice. */
  close(): Promise<void>;
  /** HTTP requests received so far. */
  requestCount(): number;
}

export async function startHost(options: HostOptions): Promise<RunningHost> {
  assertLoopback(options.listen.host);
  const satisfiable = options.satisfiableStandardServices ?? [];
  const invalidProtocol = satisfiable.find((protocol) => !isStandardServiceProtocol(protocol));
  if (invalidProtocol !== undefined) throw new Error(`"${invalidProtocol}" is not a standard-service protocol identifier`);

  const catalog = FormCatalog.install(loadFormPackages(options.packageDirs));
  const tokens = new TokenTable(options.tokens);
  const store = SqliteHostStore.open(options.dbPath);
  const host: HostContext = {
    catalog,
    store,
    tokens,
    satisfiableStandardServices: new Set(satisfiable),
    now: options.now ?? (() => new Date()),
    mintUid: options.mintUid ?? randomUid,
    nextRequestId: createRequestIdSource(),
    log: options.log ?? (() => {}),
  };

  let requests = 0;
  const listener = createRequestListener(host);
  const server = createServer((req, res) => {
    requests += 1;
    listener(req, res);
  });
  // Node closes idle keep-alive sockets after 5 s; clients (undici, fetch) that reuse a
  // pooled socket at that moment see "other side closed". Idle longer than clients do.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  try {
    await listen(server, options.listen.host, options.listen.port);
  } catch (error) {
    store.close();
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.listen.port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${formatHost(options.listen.host)}:${port}`,
    requestCount: () => requests,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          store.close();
          resolve();
        });
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function assertLoopback(host: string): void {
  const loopback = host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
  if (!loopback) {
    throw new Error(`refusing to serve plain HTTP on ${host}: only a loopback address (127.0.0.1, ::1, localhost) is allowed`);
  }
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function formatHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}
