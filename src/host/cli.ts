// The takoform-host command line. `serve` starts a Host, prints exactly one line on stdout once
// it is listening (tools wait for it), logs to stderr, and shuts down cleanly on SIGTERM/SIGINT.
// src/host/bin.ts is the executable entry point; this module only exports `main`.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseTokensFile } from './auth.js';
import { FormPackageRefusals } from './packages.js';
import { startHost, type RunningHost } from './server.js';

const USAGE = `Usage: takoform-host serve --listen HOST:PORT --db PATH|URL --packages DIR [--packages DIR ...]
                          --tokens FILE [--standard-service PROTOCOL ...] [--tls-cert FILE --tls-key FILE]
                          [--async-form KIND ...] [--operation-pending-polls N] [--operation-lease-ms N]
                          [--max-json-values N] [--enable-test-switches]

Serves Takoform Host API v1 (forms.takoform.com/v1): plain HTTP on a loopback address, or HTTPS
(any address) with --tls-cert and --tls-key.

  --listen HOST:PORT            loopback address to listen on (port 0 = any free port); default 127.0.0.1:0
  --db PATH|URL                  SQLite database file (created if missing), or :memory:; or a
                                postgres://USER@HOST:PORT/DB URL (several Host processes may share it)
  --packages DIR                a Form package directory, or a folder of package directories (repeatable)
  --tokens FILE                 JSON file {"tokens":[{"token":"...","tenant":"...","principal":"..."}]}
  --standard-service PROTOCOL   a standard-service protocol this Host satisfies (repeatable)
  --tls-cert FILE               PEM certificate chain: serve HTTPS (needed for a non-loopback --listen)
  --tls-key FILE                PEM private key for --tls-cert
  --async-form KIND             answer every mutation of this Form kind (KIND or GROUP/KIND) with
                                202 + Operation (repeatable)
  --operation-pending-polls N   polls an Operation answers "pending" before it commits (default 1)
  --operation-lease-ms N        how long this process's claim on an Operation lasts unrenewed; another
                                process takes a dead holder's Operations over after it (default 5000)
  --max-json-values N           the most JSON values one request body may hold (default 100000); a
                                bigger body is refused with invalid_argument before it is validated
  --enable-test-switches        honour the Takoform-Test-Fault / Takoform-Test-Async headers and the
                                /_takoform-test/v1 admin routes (never in production)
  -h, --help                    print this help

Once listening, prints "takoform-host listening on http://HOST:PORT" on stdout; logs go to stderr.
`;

const EXIT_OK = 0;
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    return usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    process.stdout.write(USAGE);
    return EXIT_OK;
  }
  if (positionals.length !== 1 || positionals[0] !== 'serve') return usageError('expected the "serve" command');
  if (values.db === undefined) return usageError('--db is required');
  if (values.tokens === undefined) return usageError('--tokens is required');
  if (values.packages === undefined || values.packages.length === 0) return usageError('at least one --packages is required');
  const listen = parseListen(values.listen ?? '127.0.0.1:0');
  if (listen === undefined) return usageError('--listen must be HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080');

  if ((values['tls-cert'] === undefined) !== (values['tls-key'] === undefined)) {
    return usageError('--tls-cert and --tls-key go together');
  }
  const pendingPolls = values['operation-pending-polls'] === undefined ? 1 : Number(values['operation-pending-polls']);
  if (!Number.isSafeInteger(pendingPolls) || pendingPolls < 0 || pendingPolls > 1000) {
    return usageError('--operation-pending-polls must be an integer 0..1000');
  }

  const leaseMs = values['operation-lease-ms'] === undefined ? 5000 : Number(values['operation-lease-ms']);
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 100 || leaseMs > 600_000) {
    return usageError('--operation-lease-ms must be an integer 100..600000');
  }

  const maxJsonValues = values['max-json-values'] === undefined ? undefined : Number(values['max-json-values']);
  if (maxJsonValues !== undefined && (!Number.isSafeInteger(maxJsonValues) || maxJsonValues < 1000)) {
    return usageError('--max-json-values must be an integer of at least 1000');
  }

  const log = batchedLog((text) => process.stderr.write(text));
  let host: RunningHost;
  try {
    host = await startHost({
      listen,
      dbPath: values.db,
      packageDirs: values.packages,
      tokens: parseTokensFile(readFileSync(values.tokens)),
      satisfiableStandardServices: values['standard-service'] ?? [],
      tls:
        values['tls-cert'] === undefined || values['tls-key'] === undefined
          ? undefined
          : { cert: readFileSync(values['tls-cert']), key: readFileSync(values['tls-key']) },
      asyncForms: values['async-form'] ?? [],
      operationPendingPolls: pendingPolls,
      operationLeaseMs: leaseMs,
      ...(maxJsonValues === undefined ? {} : { maxJsonValues }),
      enableTestSwitches: values['enable-test-switches'] === true,
      log,
    });
  } catch (error) {
    if (error instanceof FormPackageRefusals) {
      // One line per refusal, each naming its file, so none hides behind the first.
      log(`cannot start: ${error.refusals.length} package ${error.refusals.length === 1 ? 'refusal' : 'refusals'}`);
      for (const refusal of error.refusals) log(`refused: ${refusal}`);
    } else log(`cannot start: ${(error as Error).message}`);
    return EXIT_FAILURE;
  }
  await writeStdout(`takoform-host listening on ${host.url}\n`);
  const signal = await nextTerminationSignal();
  log(`${signal} received, shutting down`);
  await host.close();
  return EXIT_OK;
}

/**
 * The operator log, one line per request, written in batches: a write per line costs a
 * syscall and wakes the reader of the pipe (a test harness, a benchmark) once per request, on
 * the same cores as the clients being served. Lines wait at most LOG_FLUSH_MS, and whatever
 * is pending is written before the process exits.
 */
const LOG_FLUSH_MS = 10;
function batchedLog(write: (text: string) => void): (line: string) => void {
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    timer = undefined;
    if (pending === '') return;
    const text = pending;
    pending = '';
    write(text);
  };
  process.on('exit', flush);
  return (line) => {
    pending += `takoform-host: ${line}\n`;
    timer ??= setTimeout(flush, LOG_FLUSH_MS).unref();
  };
}

function parseCommandLine(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      listen: { type: 'string' },
      db: { type: 'string' },
      packages: { type: 'string', multiple: true },
      tokens: { type: 'string' },
      'standard-service': { type: 'string', multiple: true },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'async-form': { type: 'string', multiple: true },
      'operation-pending-polls': { type: 'string' },
      'operation-lease-ms': { type: 'string' },
      'max-json-values': { type: 'string' },
      'enable-test-switches': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function parseListen(value: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):([0-9]{1,5})$/.exec(value);
  if (match === null) return undefined;
  const port = Number(match[3]);
  if (port > 65535) return undefined;
  return { host: match[1] ?? match[2], port };
}

/** Resolves once the line is handed to the OS, so a reader waiting for it sees it immediately. */
function writeStdout(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (error) => (error ? reject(error) : resolve()));
  });
}

function nextTerminationSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

function usageError(message: string): number {
  process.stderr.write(`takoform-host: ${message}\n\n${USAGE}`);
  return EXIT_USAGE;
}
