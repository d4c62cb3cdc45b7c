// Runs the plugin as go-plugin expects: AutoMTLS when PLUGIN_CLIENT_CERT is present (our
// per-process certificate, the host's certificate required), a unix socket, exactly one
// handshake line on stdout, and a prompt exit on Shutdown.
import * as grpc from '@grpc/grpc-js';
import { appendFileSync } from 'node:fs';
import { CATALOG_FORMAT_VERSION, loadCatalog, type LoadedCatalog } from './catalog/catalog-file.js';
import { errorDiag } from './diag/diagnostics.js';
import { createProviderHandlers } from './grpc/provider-service.js';
import { createPluginServer } from './grpc/plugin-server.js';
import { createServerCertificate } from './handshake/certificate.js';
import { formatHandshakeLine, type ListenAddress } from './handshake/handshake-line.js';
import { planListenSocket } from './handshake/socket-path.js';
import type { Logger } from './logging.js';
import { TakoformProvider } from './provider/provider.js';

export async function servePlugin(logger: Logger, writeHandshake: (line: string) => void): Promise<void> {
  // A broken catalog must not stop the process before the handshake: core would only say
  // "Failed to read any lines from plugin's stdout" and hide our stderr. Serve, and report
  // the problem as a diagnostic on the first schema request instead.
  let catalog: LoadedCatalog;
  let catalogProblem: string | undefined;
  try {
    catalog = loadCatalog();
  } catch (e) {
    catalogProblem = e instanceof Error ? e.message : String(e);
    catalog = { catalog: { formatVersion: CATALOG_FORMAT_VERSION, forms: [] }, source: 'none (the catalog could not be read)' };
  }
  const provider = new TakoformProvider(catalog, logger);
  if (catalogProblem) {
    provider.loadDiagnostics.push(errorDiag('Cannot read the Form catalog', `${catalogProblem}\n\nRegenerate it with \`terraform-provider-takoform catalog lock\` or fix the file.`));
  }
  const socket = planListenSocket();
  let server: grpc.Server | undefined;
  let exiting = false;
  const exit = (code: number) => {
    if (exiting) return;
    exiting = true;
    socket.cleanup();
    recordProcessStats();
    void provider.close().finally(() => process.exit(code));
    setTimeout(() => process.exit(code), 500).unref();
  };

  server = createPluginServer(
    createProviderHandlers(provider, () => logger.info('StopProvider received')),
    { onShutdown: () => { server?.forceShutdown(); exit(0); } },
  );

  let credentials = grpc.ServerCredentials.createInsecure();
  let certDer: Buffer | undefined;
  const clientCert = process.env.PLUGIN_CLIENT_CERT;
  if (clientCert) {
    const cert = createServerCertificate();
    credentials = grpc.ServerCredentials.createSsl(Buffer.from(clientCert), [{ cert_chain: Buffer.from(cert.certPem), private_key: Buffer.from(cert.keyPem) }], true);
    certDer = cert.der;
  }

  const port = await new Promise<number>((resolve, reject) => server!.bindAsync(socket.target, credentials, (err, p) => (err ? reject(err) : resolve(p))));
  const listen: ListenAddress = socket.target.startsWith('unix://')
    ? { network: 'unix', address: socket.target.slice('unix://'.length) }
    : { network: 'tcp', address: `127.0.0.1:${port}` };
  writeHandshake(formatHandshakeLine(listen, certDer));
  logger.debug('plugin serving', { network: listen.network, address: listen.address, tls: !!certDer });

  process.on('SIGTERM', () => exit(0));
  // If the host dies without Shutdown (G12), do not linger holding its pipes.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) exit(0);
  }, 500).unref();
}

/**
 * For the benchmark (scripts/bench.mjs): when TAKOFORM_PROVIDER_STATS_FILE is set, each
 * provider process appends its CPU time and peak RSS there as one JSON line at exit.
 */
function recordProcessStats(): void {
  const file = process.env.TAKOFORM_PROVIDER_STATS_FILE;
  if (!file) return;
  const usage = process.resourceUsage();
  try {
    appendFileSync(file, JSON.stringify({ pid: process.pid, cpuUserUs: usage.userCPUTime, cpuSystemUs: usage.systemCPUTime, maxRssKb: usage.maxRSS }) + '\n');
  } catch {
    // statistics are best effort; never fail a shutdown over them
  }
}
