// Runs the plugin as go-plugin expects: AutoMTLS when PLUGIN_CLIENT_CERT is present (our
// per-process certificate, the host's certificate required), a unix socket, exactly one
// handshake line on stdout, and a prompt exit on Shutdown.
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { CATALOG_FILE_NAME, CATALOG_FORMAT_VERSION, loadCatalog, type LoadedCatalog } from './catalog/catalog-file.js';
import { catalogDiagnostics, lockCommandFor, resourceTypesInConfiguration } from './catalog/catalog-hints.js';
import { errorDiag } from './diag/diagnostics.js';
import { createProviderHandlers } from './grpc/provider-service.js';
import type { GrpcH2Server, TlsSettings } from './grpc/h2-server.js';
import { createPluginServer, firstRpcMs, rpcCounts } from './grpc/plugin-services.js';
import { createServerCertificate } from './handshake/certificate.js';
import { formatHandshakeLine, type ListenAddress } from './handshake/handshake-line.js';
import { planListenSocket } from './handshake/socket-path.js';
import type { Logger } from './logging.js';
import { markHandshake, processStatsLine, type HandshakeMark } from './process-stats.js';
import { TakoformProvider } from './provider/provider.js';

export async function servePlugin(logger: Logger, writeHandshake: (line: string) => void): Promise<void> {
  // If the host dies without Shutdown (G12), do not linger holding its pipes — watched from
  // the first moment, since start-up (catalog, certificate) can take a while on a busy machine.
  const parent = process.ppid;
  let onParentGone: () => void = () => process.exit(0);
  setInterval(() => {
    if (process.ppid !== parent) onParentGone();
  }, 500).unref();
  // A broken catalog must not stop the process before the handshake: core would only say
  // "Failed to read any lines from plugin's stdout" and hide our stderr. Serve, and report
  // the problem as a diagnostic on the first schema request instead.
  let catalog: LoadedCatalog;
  let catalogProblem: string | undefined;
  try {
    catalog = loadCatalog();
  } catch (e) {
    catalogProblem = e instanceof Error ? e.message : String(e);
    const file = path.resolve(process.env.TAKOFORM_CATALOG || CATALOG_FILE_NAME);
    catalog = { catalog: { formatVersion: CATALOG_FORMAT_VERSION, forms: [] }, source: 'none (the catalog could not be read)', file, found: false };
  }
  const provider = new TakoformProvider(catalog, logger);
  if (catalogProblem) {
    provider.loadDiagnostics.push(
      errorDiag(
        'Cannot read the Form catalog',
        `${catalogProblem}\n\nFix the file, or write it from the Host (TAKOFORM_TOKEN set) with:\n\n  ${lockCommandFor(catalog)}`,
      ),
    );
  } else {
    // No catalog, or one without a type the configuration uses: say so where core shows it.
    provider.deferLoadDiagnostics(() => catalogDiagnostics(catalog, resourceTypesInConfiguration()));
  }
  const socket = planListenSocket();
  let server: GrpcH2Server | undefined;
  let handshake: HandshakeMark | undefined;
  let exiting = false;
  // At the very end, so that the shutdown work (closing the Host connections) is counted too.
  process.once('exit', () => recordProcessStats(handshake));
  const exit = (code: number) => {
    if (exiting) return;
    exiting = true;
    socket.cleanup();
    void provider.close().finally(() => process.exit(code));
    setTimeout(() => process.exit(code), 500).unref();
  };

  onParentGone = () => exit(0);

  server = createPluginServer(
    createProviderHandlers(provider, () => {
      logger.info('StopProvider received');
      provider.stop();
    }),
    {
      onShutdown: () => {
        provider.closedByCore();
        server?.forceShutdown();
        exit(0);
      },
    },
  );

  // AutoMTLS: our certificate in the handshake line, and only core's certificate accepted.
  let tls: TlsSettings | undefined;
  let certDer: Buffer | undefined;
  const clientCert = process.env.PLUGIN_CLIENT_CERT;
  if (clientCert) {
    const cert = createServerCertificate();
    tls = { certPem: cert.certPem, keyPem: cert.keyPem, clientCertPem: clientCert };
    certDer = cert.der;
  }

  const socketPath = socket.target.startsWith('unix://') ? socket.target.slice('unix://'.length) : undefined;
  const port = await server.listen(socketPath === undefined ? {} : { socketPath }, tls);
  const listen: ListenAddress = socketPath !== undefined ? { network: 'unix', address: socketPath } : { network: 'tcp', address: `127.0.0.1:${port}` };
  // Training the code cache (install): compile what launches run after the handshake too.
  if (process.env.TAKOFORM_CODE_CACHE_TRAINING === '1') await (await import('./code-cache-warm-up.js')).warmUpForCodeCache();
  writeHandshake(formatHandshakeLine(listen, certDer));
  handshake = markHandshake();
  logger.debug('plugin serving', { network: listen.network, address: listen.address, tls: !!certDer });

  process.on('SIGTERM', () => exit(0));
}

/**
 * For the benchmark (scripts/bench.mjs): when TAKOFORM_PROVIDER_STATS_FILE is set, each
 * provider process appends its CPU time, its own peak RSS and calls per RPC there as one JSON
 * line at exit (its 'exit' event, after the shutdown work), and the time and CPU from process
 * start to the handshake line; see process-stats.ts.
 */
function recordProcessStats(handshake: HandshakeMark | undefined): void {
  const file = process.env.TAKOFORM_PROVIDER_STATS_FILE;
  if (!file) return;
  try {
    appendFileSync(file, JSON.stringify(processStatsLine(handshake, rpcCounts, firstRpcMs)) + '\n');
  } catch {
    // statistics are best effort; never fail a shutdown over them
  }
}
