// startHost: verifies and installs the Form packages (and the Interface and Binding documents
// beside them), opens the store, and serves Host API v1 over node:http, or node:https when a
// certificate is configured. Plain HTTP is lawful only on a loopback origin (wire reference
// §2.1), so a non-loopback listen address is refused unless TLS is configured.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { isIP } from 'node:net';
import path from 'node:path';
import { TokenTable, type TokenEntry } from './auth.js';
import { FormCatalog } from './catalog.js';
import { loadContractDocuments } from './contract-documents.js';
import { assertCorpusDigest, corpusDigests } from './corpus-digests.js';
import { isStandardServiceProtocol } from './grammar.js';
import type { HostContext } from './host-context.js';
import { createRequestListener } from './http/dispatch.js';
import { MAX_REQUEST_JSON_VALUES } from './http/json-body.js';
import { createRequestIdSource } from './http/request-id.js';
import { collectRefusal, FormPackageRefusals, PACKAGE_INDEX_FILE, loadFormPackages } from './packages.js';
import { unsatisfiedContracts } from './contract-coverage.js';
import { describeFormRef } from './form-ref.js';
import { TenantGate } from './http/tenant-gate.js';
import { randomUid } from './resources/counters.js';
import { startOperationWorker } from './operations/operation-worker.js';
import { advanceOperation } from './routes/operations.js';
import { openStore } from './store/open-store.js';
import type { ResourceAddress } from './store/store.js';

export type { TokenEntry } from './auth.js';

export interface HostOptions {
  /** Loopback host (127.0.0.0/8, ::1 or localhost), or any host with `tls`; port 0 picks a free one. */
  listen: { host: string; port: number };
  /**
   * SQLite database file, created if missing; ':memory:' for a throwaway Host; or a
   * postgres:// URL, which several Host processes may share.
   */
  dbPath: string;
  /** Package directories, or folders whose subdirectories are packages. */
  packageDirs: string[];
  tokens: TokenEntry[];
  /** Standard-service protocols this Host satisfies; every other protocol is unsatisfiable. */
  satisfiableStandardServices?: string[];
  /** PEM certificate chain and private key: serve HTTPS (and allow a non-loopback listen address). */
  tls?: { cert: Buffer | string; key: Buffer | string };
  /** Kinds ("Kind" or "group/Kind") whose mutations always answer 202 with an Operation. */
  asyncForms?: string[];
  /** Polls a fresh Operation answers "pending" before it commits (default 1). */
  operationPendingPolls?: number;
  /** The most JSON values one request body may hold (default 100000); more is invalid_argument. */
  maxJsonValues?: number;
  /** How long an Operation lease lasts unrenewed (default 5000 ms): a dead holder's Operations wait this long. */
  operationLeaseMs?: number;
  /** Honour the Takoform-Test-* headers and the /_takoform-test/v1 admin routes (default false). */
  enableTestSwitches?: boolean;
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
  /** Start-up warnings (also logged): installed Forms whose contracts nothing installed satisfies. */
  readonly warnings: readonly string[];
}

export async function startHost(options: HostOptions): Promise<RunningHost> {
  if (options.tls === undefined) assertLoopback(options.listen.host);
  const satisfiable = options.satisfiableStandardServices ?? [];
  const invalidProtocol = satisfiable.find((protocol) => !isStandardServiceProtocol(protocol));
  if (invalidProtocol !== undefined) throw new Error(`"${invalidProtocol}" is not a standard-service protocol identifier`);

  // Every refusal is collected before giving up, so one start-up reports all of them.
  const refusals: string[] = [];
  const loadedPackages = loadFormPackages(options.packageDirs, refusals);
  const contracts = loadContractDocuments(options.packageDirs, refusals);
  // Where a frozen conformance corpus lists a package or contract document, its digest must match.
  const expectedDigests = corpusDigests(options.packageDirs);
  const packages = loadedPackages.filter(
    (loaded) =>
      collectRefusal(refusals, () => (assertCorpusDigest(expectedDigests, path.join(loaded.directory, PACKAGE_INDEX_FILE), loaded.packageDigest), true)) ===
      true,
  );
  for (const entry of [...contracts.interfaces, ...contracts.bindings])
    collectRefusal(refusals, () => assertCorpusDigest(expectedDigests, entry.file, entry.ref.schemaDigest));
  const catalog = FormCatalog.install(packages, refusals);
  if (refusals.length > 0) throw new FormPackageRefusals(refusals);
  const directories = new Map(packages.map((loaded) => [describeFormRef(loaded.formRef), loaded.directory]));
  const warnings = unsatisfiedContracts(catalog, contracts, (key) => directories.get(key));
  for (const warning of warnings) options.log?.(`warning: ${warning}`);
  const tokens = new TokenTable(options.tokens);
  const log = options.log ?? (() => {});
  const store = await openStore(options.dbPath, log);
  // A number no other process on this database ever gets: it names this process's Operation
  // leases and prefixes its request ids, so both stay unique across processes and restarts.
  const instance = await store
    .transaction((tx) => tx.nextSequence(HOST_INSTANCE_TENANT, 'host-instances'))
    .catch(async (error: unknown) => {
      await store.close();
      throw error;
    });
  const instanceId = `host_${instance.toString(36)}`;
  const host: HostContext = {
    catalog,
    contracts,
    store,
    tokens,
    satisfiableStandardServices: new Set(satisfiable),
    asyncForms: new Set(options.asyncForms ?? []),
    operationPendingPolls: options.operationPendingPolls ?? 1,
    instanceId,
    maxJsonValues: options.maxJsonValues ?? MAX_REQUEST_JSON_VALUES,
    largeBodies: new TenantGate(),
    operationLeaseMs: options.operationLeaseMs ?? 5000,
    testSwitches: options.enableTestSwitches === true,
    inFlight: new Set(),
    mintHandle: (prefix) => `${prefix}_${randomBytes(12).toString('hex')}`,
    now: options.now ?? (() => new Date()),
    mintUid: options.mintUid ?? randomUid,
    nextRequestId: createRequestIdSource(instance),
    log,
  };

  let requests = 0;
  const scheme = options.tls === undefined ? 'http' : 'https';
  const listener = createRequestListener(host, scheme);
  const onRequest = (req: Parameters<typeof listener>[0], res: Parameters<typeof listener>[1]): void => {
    requests += 1;
    listener(req, res);
  };
  const server: Server = options.tls === undefined ? createServer(onRequest) : createTlsServer({ cert: options.tls.cert, key: options.tls.key }, onRequest);
  // Node closes idle keep-alive sockets after 5 s; clients (node:http, undici, fetch) that reuse a
  // pooled socket at that moment see "other side closed". Idle longer than clients do.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  try {
    await listen(server, options.listen.host, options.listen.port);
  } catch (error) {
    await store.close();
    throw error;
  }
  const worker = startOperationWorker(host, advanceOperation);
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.listen.port;
  let closing: Promise<void> | undefined;
  return {
    url: `${scheme}://${formatHost(options.listen.host)}:${port}`,
    requestCount: () => requests,
    warnings,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          void worker
            .stop()
            .then(() => store.close())
            .catch((error: unknown) => log(`closing the store failed: ${(error as Error).message}`))
            .finally(resolve);
        });
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** Tenants are never empty (auth.ts), so this sequence cannot collide with a tenant's own. */
const HOST_INSTANCE_TENANT = '';

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
