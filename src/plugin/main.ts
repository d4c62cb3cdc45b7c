// Entry of the provider executable. Order matters: stdout is reserved for the single
// handshake line before anything else can print (any earlier byte breaks the handshake,
// G10), SIGINT is ignored (core stops us with StopProvider and lets in-flight applies
// finish, G17), and an uncaught exception is reported as "panic:" so core shows it (G13).
//
// Only what serving needs is imported statically: core starts the provider 3-5 times per
// command, and the commands for people (install, catalog lock, docs, cdktf) are loaded when run.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseCatalog } from './catalog/catalog-file.js';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, negotiateProtocol } from './handshake/handshake-line.js';
import { PROVIDER_SOURCE } from './provider-address.js';
import { Logger } from './logging.js';
import { PROVIDER_VERSION } from './provider/provider.js';
import { servePlugin } from './serve.js';

const USAGE = `terraform-provider-takoform ${PROVIDER_VERSION}

This is a Terraform/OpenTofu provider plugin. tofu or terraform start it by themselves;
running it directly does nothing useful. Commands for people:

  install [--mirror DIR]        put the provider into a plugin mirror (default ~/.terraform.d/plugins)
                                so that "tofu init" finds source = "${PROVIDER_SOURCE}"
  catalog lock [--endpoint URL] [--space SPACE] [--out FILE] [--package DIR ...]
                                [--check] [--allow-removals] [--allow-metadata-loss]
                                write the Form catalog (.takoform.lock.json) from a Host and print
                                what changed; --package (a Form Package or a folder of them) adds
                                role, immutable fields, output schema and constraints from verified
                                packages; refuses to remove or re-point a type (--allow-removals) or
                                to lose package metadata (--allow-metadata-loss); --check writes
                                nothing and exits 1 when the lock is not current; the token is read
                                from TAKOFORM_TOKEN, an extra CA file (https Host) from TAKOFORM_CA_FILE
  cdktf [--catalog FILE] [--out DIR]
                                write CDKTF TypeScript bindings for the catalog (needs
                                @cdktf/provider-generator and jsii-pacmak in the project)
  docs [--catalog FILE] [--out DIR]
                                write Registry-style docs for the catalog's resource types
  version                       print the version
`;

export async function main(argv: readonly string[]): Promise<number> {
  const realStdoutWrite = process.stdout.write.bind(process.stdout);
  const toStderr = (...args: unknown[]) => void process.stderr.write(args.map(String).join(' ') + '\n');
  console.log = console.info = console.debug = toStderr;

  const [command, ...rest] = argv;
  if (command === 'version' || command === '--version') {
    realStdoutWrite(`${PROVIDER_VERSION}\n`);
    return 0;
  }
  if (command === 'install') {
    const { installProvider } = await import('./install.js');
    const dir = installProvider({ bundle: process.argv[1] ?? '', ...(flag(rest, '--mirror') ? { mirror: flag(rest, '--mirror')! } : {}) });
    realStdoutWrite(`installed ${PROVIDER_SOURCE} ${PROVIDER_VERSION} into ${dir}\n`);
    return 0;
  }
  if (command === 'catalog' && rest[0] === 'lock') {
    return catalogLock(rest.slice(1), realStdoutWrite);
  }
  if (command === 'docs') {
    return await writeDocs(rest, realStdoutWrite);
  }
  if (command === 'cdktf') {
    const catalogFile = path.resolve(flag(rest, '--catalog') ?? '.takoform.lock.json');
    const out = path.resolve(flag(rest, '--out') ?? '.gen');
    try {
      const { writeCdktfBindings } = await import('./cdktf/bindings.js');
      await writeCdktfBindings(parseCatalog(readFileSync(catalogFile), catalogFile), out);
      realStdoutWrite(`wrote CDKTF bindings for ${catalogFile} into ${out}\n`);
      return 0;
    } catch (e) {
      process.stderr.write(`cdktf failed: ${e instanceof Error ? e.message : String(e)}\n`);
      return 1;
    }
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    realStdoutWrite(USAGE);
    return 0;
  }
  if (command !== undefined || process.env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    process.stderr.write(command !== undefined ? `unknown command ${JSON.stringify(command)}\n\n${USAGE}` : USAGE);
    return 1;
  }
  if (negotiateProtocol(process.env.PLUGIN_PROTOCOL_VERSIONS) === undefined) {
    process.stderr.write(`terraform-provider-takoform speaks plugin protocol 6 only; the host offered ${process.env.PLUGIN_PROTOCOL_VERSIONS}\n`);
    return 1;
  }

  process.on('SIGINT', () => undefined);
  process.on('uncaughtException', (e) => {
    process.stderr.write(`panic: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(2);
  });
  process.on('unhandledRejection', (e) => {
    process.stderr.write(`panic: unhandled rejection: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(2);
  });
  await servePlugin(Logger.fromEnv(), (line) => void realStdoutWrite(line));
  return -1; // keep running: the gRPC server owns the process from here
}

async function catalogLock(args: readonly string[], out: (s: string) => void): Promise<number> {
  const { catalogLockCommand } = await import('./catalog/lock-command.js');
  return catalogLockCommand(args, { out, err: (t) => void process.stderr.write(t), env: process.env });
}

async function writeDocs(args: readonly string[], out: (s: string) => void): Promise<number> {
  const catalogFile = path.resolve(flag(args, '--catalog') ?? '.takoform.lock.json');
  const dir = path.resolve(flag(args, '--out') ?? 'docs');
  try {
    const { generateDocs } = await import('./docs/generate-docs.js');
    const catalog = parseCatalog(readFileSync(catalogFile), catalogFile);
    const pages = generateDocs(catalog, path.basename(catalogFile));
    for (const page of pages) {
      mkdirSync(path.dirname(path.join(dir, page.path)), { recursive: true });
      writeFileSync(path.join(dir, page.path), page.content);
    }
    out(`wrote ${pages.length} pages into ${dir}\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`docs failed: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

function flag(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  const eq = args.find((a) => a.startsWith(`${name}=`));
  return eq?.slice(name.length + 1);
}
