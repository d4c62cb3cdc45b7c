// Entry of the provider executable. Order matters: stdout is reserved for the single
// handshake line before anything else can print (any earlier byte breaks the handshake,
// G10), SIGINT is ignored (core stops us with StopProvider and lets in-flight applies
// finish, G17), and an uncaught exception is reported as "panic:" so core shows it (G13).
//
// Only what serving needs is imported statically: core starts the provider 3-5 times per
// command, and the commands for people (install, catalog lock, docs, cdktf) are loaded when run.
import { flagValue } from './command-flags.js';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isSea } from 'node:sea';
import { parseCatalog } from './catalog/catalog-file.js';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, negotiateProtocol } from './handshake/handshake-line.js';
import { PROVIDER_SOURCE } from './provider-address.js';
import { Logger } from './logging.js';
import { PROVIDER_VERSION } from './provider/provider.js';
import { servePlugin } from './serve.js';

const USAGE = `terraform-provider-takoform ${PROVIDER_VERSION}

This is a Terraform/OpenTofu provider plugin. tofu or terraform start it by themselves;
running it directly does nothing useful. Commands for people:

  install [--mirror DIR] [--wrapper]
                                put the provider into a plugin mirror (default ~/.terraform.d/plugins)
                                so that "tofu init" finds source = "${PROVIDER_SOURCE}": the single
                                executable (Node embedded) where one is built for this platform,
                                else a wrapper that runs this bundle with the node on PATH
  release [--out DIR] [--platform OS_ARCH ...]
                                write Registry release artifacts (zips, SHA256SUMS, manifest) and a
                                provider network mirror tree (index.json, <version>.json)
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
  const checked = checkCommandLine(argv);
  if (checked !== undefined) {
    (checked.code === 0 ? realStdoutWrite : (t: string) => void process.stderr.write(t))(checked.text);
    return checked.code;
  }
  if (command === 'version' || command === '--version') {
    realStdoutWrite(`${PROVIDER_VERSION}\n`);
    return 0;
  }
  if (command === 'install') {
    const { builtExecutable, installProvider } = await import('./install.js');
    // The single executable installs itself; a bundle installs the one built for this
    // platform beside it, else the wrapper (always with --wrapper). The bundle is the real
    // file: npm starts us through a link in node_modules/.bin.
    const wrapper = rest.includes('--wrapper');
    if (wrapper && runningAsSingleExecutable()) {
      process.stderr.write('install --wrapper: run it from the npm package or a build (node terraform-provider-takoform), not from the single executable\n');
      return 1;
    }
    const bundle = realpathSync(process.argv[1] ?? '');
    const executable = wrapper ? undefined : runningAsSingleExecutable() ? process.execPath : builtExecutable(bundle);
    const dir = installProvider({
      bundle,
      ...(executable !== undefined ? { executable } : {}),
      ...(flagValue(rest, '--mirror') ? { mirror: flagValue(rest, '--mirror')! } : {}),
    });
    realStdoutWrite(
      `installed ${PROVIDER_SOURCE} ${PROVIDER_VERSION} into ${dir} (${executable !== undefined ? 'single executable, Node embedded' : 'wrapper: needs node on PATH'})\n`,
    );
    return 0;
  }
  if (command === 'release') {
    const { release } = await import('./release/release-command.js');
    return release(rest, realStdoutWrite);
  }
  if (command === 'catalog' && rest[0] === 'lock') {
    return catalogLock(rest.slice(1), realStdoutWrite);
  }
  if (command === 'docs') {
    return await writeDocs(rest, realStdoutWrite);
  }
  if (command === 'cdktf') {
    const catalogFile = path.resolve(flagValue(rest, '--catalog') ?? '.takoform.lock.json');
    const out = path.resolve(flagValue(rest, '--out') ?? '.gen');
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
  const catalogFile = path.resolve(flagValue(args, '--catalog') ?? '.takoform.lock.json');
  const dir = path.resolve(flagValue(args, '--out') ?? 'docs');
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

/** The commands for people and the flags each takes (a flag followed by a value ends in '='). */
const COMMANDS: Record<string, readonly string[]> = {
  install: ['--mirror=', '--wrapper'],
  release: ['--out=', '--platform='],
  'catalog lock': ['--endpoint=', '--space=', '--out=', '--package=', '--check', '--allow-removals', '--allow-metadata-loss'],
  cdktf: ['--catalog=', '--out='],
  docs: ['--catalog=', '--out='],
  version: [],
};

/**
 * `<command> --help` prints the usage and exits 0; an unknown flag is an error (exit 2), so
 * a mistyped flag in a script or a doc fails instead of doing the default silently.
 */
function checkCommandLine(argv: readonly string[]): { code: number; text: string } | undefined {
  const name = argv[0] === 'catalog' && argv[1] === 'lock' ? 'catalog lock' : argv[0];
  if (name === undefined || !(name in COMMANDS)) return undefined;
  const args = argv.slice(name.split(' ').length);
  const known = COMMANDS[name]!;
  if (args.includes('--help') || args.includes('-h')) return { code: 0, text: commandUsage(name) };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-')) return { code: 2, text: `${name}: unexpected argument ${JSON.stringify(a)}\n\n${commandUsage(name)}` };
    const bare = a.split('=')[0]!;
    if (known.includes(bare)) continue;
    if (!known.includes(`${bare}=`)) return { code: 2, text: `${name}: unknown flag ${bare}\n\n${commandUsage(name)}` };
    if (!a.includes('=')) {
      // its value; a missing one (an empty variable in a script) would otherwise take the next flag
      const value = args[i + 1];
      if (value === undefined || value.startsWith('--')) return { code: 2, text: `${name}: ${bare} needs a value\n\n${commandUsage(name)}` };
      i++;
    }
  }
  return undefined;
}

function commandUsage(name: string): string {
  // The command's own paragraph of USAGE: its line and the indented lines below it.
  const lines = USAGE.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`  ${name} `) || l === `  ${name}` || l.startsWith(`  ${name}\t`));
  const out = [`usage: terraform-provider-takoform ${lines[start]!.trim()}`];
  for (const l of lines.slice(start + 1)) {
    if (!/^\s{20,}/.test(l)) break;
    out.push(l);
  }
  return out.join('\n') + '\n';
}

/** True inside the single executable (Node embedded), where argv[1] is the executable itself. */
function runningAsSingleExecutable(): boolean {
  return isSea();
}
