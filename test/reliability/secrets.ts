// Secrets and tenant isolation, through the real plugin driven by real `tofu` against the
// real reference Host. The bearer token (a distinctive string per tenant) must never appear
// in state files and their backups, saved plans (every zip member), TF_LOG=trace output,
// the stdout/stderr of any command (including refused ones), the Host's own log, the
// `.takoform.lock.json` written by `catalog lock`, `.terraform/` or `.terraform.lock.hcl`.
// TLS must fail closed without the CA, plain http to a non-loopback origin must be refused
// before any connection, and a redirect must never carry the token elsewhere. Two tenants
// sharing a space name must not see or touch each other's resources.
//
// No Form Definition in the shared corpus marks a property sensitive, writeOnly or secret
// (the only "sensitive" in /work/shared/data is prose in descriptions and an Interface's
// `declaredSensitiveVars`, which is not a Form), and the schema mapping never marks a Form
// attribute sensitive; so the secrets scanned for are the provider's own sensitive
// attribute, `token`, given through TAKOFORM_TOKEN and through an HCL variable.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { Agent, request } from 'undici';
import { FaultProxy } from '../support/fault-proxy.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { HostApi, RANGE_SEQUENCE_REF } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, PROVIDER_BUNDLE, REPO_ROOT } from '../support/paths.js';
import { createWorkspace, runProcess, type TofuRun, type TofuWorkspace } from '../support/tofu.js';
import { count, emptyReport, seededRandom, type ReliabilityReport, type ScenarioOptions } from './report.js';

// ---------------------------------------------------------------------------------------
// The scanner
// ---------------------------------------------------------------------------------------

export interface Secret {
  /** How findings refer to it, e.g. "tenant A token". Never the value. */
  readonly name: string;
  readonly value: string;
}

export interface Finding {
  /** Where: a file path (with `!member` for a zip member) or an output label. */
  readonly where: string;
  readonly secret: string;
  readonly form: string;
}

const BEARER_FORM = 'an Authorization: Bearer value';

/**
 * The byte strings a secret is searched as, most specific first: the forms a careless log
 * line or encoder produces. base64 is searched at all three byte alignments (k filler bytes
 * before the secret, keeping only the characters that depend on the secret alone), so a
 * token inside a longer base64 blob (a Basic header, a serialized request) is found too.
 */
export function secretForms(secret: Secret): { form: string; text: string }[] {
  const v = secret.value;
  const forms: { form: string; text: string }[] = [
    { form: BEARER_FORM, text: `Bearer ${v}` },
    { form: BEARER_FORM, text: `bearer ${v}` },
    { form: 'raw text', text: v },
  ];
  const add = (form: string, text: string): void => {
    if (!forms.some((f) => f.text === text)) forms.push({ form, text });
  };
  add('URL-encoded text', encodeURIComponent(v));
  add('JSON-escaped text', JSON.stringify(v).slice(1, -1).replace(/\//g, '\\/'));
  add('hex', Buffer.from(v, 'utf8').toString('hex'));
  const bytes = Buffer.from(v, 'utf8');
  for (let k = 0; k < 3; k++) {
    const encoded = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
    const core = encoded.slice(k === 0 ? 0 : 4, Math.floor((k + bytes.length) / 3) * 4);
    if (core.length < 12) continue; // too short to be evidence of anything
    add('base64', core);
    add('base64url', core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

export class SecretScanner {
  readonly findings: Finding[] = [];
  filesScanned = 0;
  bytesScanned = 0;
  outputsScanned = 0;
  zipMembersScanned = 0;
  /** Zip files (saved plans) whose members could not be read: a scan that proves nothing. */
  readonly unreadable: string[] = [];
  private readonly needles: { secret: string; form: string; bytes: Buffer }[];

  constructor(readonly secrets: readonly Secret[]) {
    this.needles = secrets.flatMap((s) => secretForms(s).map((f) => ({ secret: s.name, form: f.form, bytes: Buffer.from(f.text, 'utf8') })));
  }

  /** Scans a captured output (stdout, stderr, a log) under a label. */
  scanText(where: string, text: string): Finding[] {
    this.outputsScanned++;
    const bytes = Buffer.from(text, 'utf8');
    this.bytesScanned += bytes.length;
    return this.scanBytes(where, bytes);
  }

  /** Scans every file under `dir` (symlinks followed, each directory once) and every zip member. */
  scanDirectory(dir: string): Finding[] {
    const found: Finding[] = [];
    const seenDirs = new Set<string>();
    const walk = (p: string): void => {
      let real: string;
      try {
        real = realpathSync(p);
      } catch {
        return; // a dangling symlink holds no bytes
      }
      const st = statSync(real);
      if (st.isDirectory()) {
        if (seenDirs.has(real)) return;
        seenDirs.add(real);
        for (const entry of readdirSync(p).sort()) walk(path.join(p, entry));
      } else if (st.isFile()) {
        found.push(...this.scanFile(p));
      }
    };
    lstatSync(dir); // a missing directory is a setup failure, not an empty scan
    walk(dir);
    return found;
  }

  scanFile(file: string): Finding[] {
    const bytes = readFileSync(file);
    this.filesScanned++;
    this.bytesScanned += bytes.length;
    const found = this.scanBytes(file, bytes);
    if (isZip(bytes)) {
      let members: ZipMember[];
      try {
        members = readZip(bytes);
      } catch (e) {
        this.unreadable.push(`${file} (${(e as Error).message})`);
        return found;
      }
      for (const m of members) {
        this.zipMembersScanned++;
        this.bytesScanned += m.data.length;
        found.push(...this.scanBytes(`${file}!${m.name}`, m.data));
      }
    }
    return found;
  }

  private scanBytes(where: string, bytes: Buffer): Finding[] {
    const found: Finding[] = [];
    const reported = new Set<string>();
    for (const n of this.needles) {
      if (bytes.indexOf(n.bytes) < 0) continue;
      // "Bearer <token>" contains the raw token: report only the more telling form.
      if (n.form === 'raw text' && reported.has(`${n.secret}\u0000${BEARER_FORM}`)) continue;
      const key = `${n.secret}\u0000${n.form}`;
      if (reported.has(key)) continue;
      reported.add(key);
      found.push({ where, secret: n.secret, form: n.form });
    }
    this.findings.push(...found);
    return found;
  }

  /** Replaces every secret, in every searched form, so a text can be shown to a human. */
  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) for (const f of secretForms(s)) out = out.split(f.text).join(`[${s.name}]`);
    return out;
  }
}

export function describeFinding(f: Finding): string {
  return `${f.where} contains the ${f.secret} as ${f.form}`;
}

// Saved plans are zips whose members are deflated: a byte scan of the archive alone would
// miss a secret inside, so every member is inflated and scanned.

export interface ZipMember {
  readonly name: string;
  readonly data: Buffer;
}

export function isZip(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50;
}

/** Every member, through the central directory (which has the sizes even when the writer
 *  streamed the data with data descriptors, as Go's archive/zip does). */
export function readZip(bytes: Buffer): ZipMember[] {
  // fflate: a small, well-kept zip reader; saved plans are ordinary deflate zips.
  return Object.entries(unzipSync(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength))).map(([name, data]) => ({ name, data: Buffer.from(data) }));
}

// ---------------------------------------------------------------------------------------
// The scenario
// ---------------------------------------------------------------------------------------

/** Texts the test asserts on directly (already free of secrets: they were scanned). */
export interface SecretsEvidence {
  /** tofu plan against the TLS Host without TAKOFORM_CA_FILE. */
  certificateDiagnostic: string;
  /** `catalog lock` against the TLS Host without TAKOFORM_CA_FILE. */
  catalogLockCertificateError: string;
  /** tofu plan through a proxy that answers 307. */
  redirectDiagnostic: string;
  /** tofu plan with a plain-http, non-loopback endpoint. */
  plainHttpDiagnostic: string;
  /** Tenant B reading tenant A's resource through the data source. */
  tenantBDataSourceDiagnostic: string;
  /** Tenant B importing tenant A's SPACE/NAME. */
  tenantBImportDiagnostic: string;
  /** Whether OpenTofu wrote a `sensitive` (not `ephemeral`) token variable into a saved plan. */
  sensitiveVariableInSavedPlan: boolean;
}

export interface SecretsScanResult {
  readonly report: ReliabilityReport;
  readonly evidence: SecretsEvidence;
}

export async function runSecretsScan(options: ScenarioOptions): Promise<ReliabilityReport> {
  return (await runSecretsScanDetailed(options)).report;
}

const PACKAGES = [path.join(GENERIC_FORMS, 'range-sequence'), path.join(GENERIC_FORMS, 'range-counter')];
const PACKAGE_FLAGS = PACKAGES.flatMap((p) => ['--package', p]);
/** Same Forms as PACKAGES, verified: lets lanes that do not test `catalog lock` skip it. */
const COMMITTED_LOCK = path.join(REPO_ROOT, 'examples/quickstart/.takoform.lock.json');
const TLS_DIR = path.join(REPO_ROOT, 'test/host/support/tls');
const TLS_CERT = path.join(TLS_DIR, 'cert.pem'); // self-signed CA:TRUE, SAN localhost + 127.0.0.1
const TLS_KEY = path.join(TLS_DIR, 'key.pem');
const API = '/apis/forms.takoform.com/v1';
/** One line per HTTP request in the Host's log: "takoform-host: GET /path -> 200 req_…". */
const HOST_REQUEST_LINE = /^takoform-host: [A-Z]+ \S+ -> \d{3} /gm;

const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

interface HostResourceView {
  readonly metadata: { readonly uid: string; readonly generation: string; readonly revision: string };
}

/** The state of one of tenant A's resources, as tenant A reads it over HTTP. */
interface Snapshot {
  readonly status: number;
  readonly uid?: string;
  readonly generation?: string;
  readonly revision?: string;
}

export async function runSecretsScanDetailed(options: ScenarioOptions): Promise<SecretsScanResult> {
  const report = emptyReport('secrets');
  const log = options.log ?? (() => undefined);
  const random = seededRandom(options.seed);
  const hex = (n: number): string => Array.from({ length: n }, () => random(0, 15).toString(16)).join('');
  // Distinctive, and with '+', '/' and '=' so that the URL-encoded, JSON-escaped and
  // base64 forms differ from the raw one and are really searched for.
  const tokenA = `tkf-secret-A-${hex(16)}+/${hex(10)}=`;
  const tokenB = `tkf-secret-B-${hex(16)}+/${hex(10)}=`;
  const scanner = new SecretScanner([
    { name: 'tenant A token', value: tokenA },
    { name: 'tenant B token', value: tokenB },
  ]);
  const evidence: SecretsEvidence = {
    certificateDiagnostic: '',
    catalogLockCertificateError: '',
    redirectDiagnostic: '',
    plainHttpDiagnostic: '',
    tenantBDataSourceDiagnostic: '',
    tenantBImportDiagnostic: '',
    sensitiveVariableInSavedPlan: false,
  };
  const violation = (sentence: string): void => {
    report.violations.push(scanner.redact(sentence));
  };
  const base = mkdtempSync(path.join(tmpdir(), 'takoform-secrets-'));
  const logs = path.join(base, 'logs');
  mkdirSync(logs);
  const scannedDirs: string[] = [logs];

  /** Runs tofu, scans both streams, and checks the exit code (a mismatch is a violation). */
  const tofu = async (ws: TofuWorkspace, label: string, args: string[], expected: number, env: NodeJS.ProcessEnv = {}): Promise<TofuRun> => {
    // Flags before positional arguments: Go's flag parsing stops at the first positional.
    const r = await ws.run([args[0]!, '-no-color', ...args.slice(1)], env);
    count(report, 'tofu:commands');
    scanOutputs(label, r);
    if (r.code !== expected) violation(`${label}: \`tofu ${args.join(' ')}\` exited ${r.code}, expected ${expected}: ${excerpt(r)}`);
    return r;
  };
  /** Runs the provider executable itself (catalog lock) with an environment of our choice. */
  const providerCommand = async (ws: TofuWorkspace, label: string, args: string[], expected: number, env: NodeJS.ProcessEnv = {}): Promise<TofuRun> => {
    const r = await runProcess(process.execPath, [PROVIDER_BUNDLE, ...args], ws.dir, { ...ws.env, ...env });
    scanOutputs(label, r);
    if (r.code !== expected) violation(`${label}: \`terraform-provider-takoform ${args.join(' ')}\` exited ${r.code}, expected ${expected}: ${excerpt(r)}`);
    return r;
  };
  const scanOutputs = (label: string, r: TofuRun): void => {
    scanner.scanText(`${label} (stdout)`, r.stdout);
    scanner.scanText(`${label} (stderr)`, r.stderr);
  };
  const excerpt = (r: TofuRun): string => scanner.redact(oneLine(r.stderr || r.stdout).slice(-600)) || '(no output)';
  /** Setup failures throw (the scenario cannot go on), with secrets redacted. */
  const setup = (label: string, r: TofuRun, expected = 0): void => {
    if (r.code !== expected) throw new Error(`setup failed: ${label} exited ${r.code}: ${excerpt(r)}`);
  };
  const workspace = (files: Record<string, string>, host: { url: string; token: string }): TofuWorkspace => {
    const ws = createWorkspace(files, host, 'demo', 'tofu');
    // The workspace's parent is also its HOME (CLI config, plugin mirror): scan all of it.
    scannedDirs.push(path.dirname(ws.dir));
    return ws;
  };
  const trace = (name: string): NodeJS.ProcessEnv => ({ TF_LOG: 'trace', TF_LOG_PATH: path.join(logs, `${name}.log`) });

  const hosts: HostProcess[] = [];
  const closers: (() => Promise<void>)[] = [];
  try {
    const tenants = [
      { token: tokenA, tenant: 'acme', principal: 'alice' },
      { token: tokenB, tenant: 'globex', principal: 'bob' },
    ];
    const plain = await startHostProcess(PACKAGES, undefined, [], tenants);
    hosts.push(plain);
    const tls = await startHostProcess(PACKAGES, undefined, ['--tls-cert', TLS_CERT, '--tls-key', TLS_KEY], [tenants[0]!]);
    hosts.push(tls);
    if (!tls.url.startsWith('https://')) throw new Error(`setup failed: the TLS Host serves ${tls.url}`);
    const committedLock = readFileSync(COMMITTED_LOCK, 'utf8');

    // ---- lane 1: tenant A through TAKOFORM_TOKEN, then tenant B against A's names ----------
    const laneEnvTokenAndTenants = async (): Promise<void> => {
      const apiA = new HostApi(plain.url, tokenA);
      const apiB = new HostApi(plain.url, tokenB);
      const a = workspace({ 'main.tf': PROVIDER_BLOCK }, { url: plain.url, token: tokenA });
      setup('tenant A catalog lock', await providerCommand(a, 'tenant A: catalog lock', ['catalog', 'lock', ...PACKAGE_FLAGS], 0));
      setup('tenant A init', await tofu(a, 'tenant A: init', ['init', '-input=false'], 0));
      const resources = (upperVar: boolean) =>
        `variable "upper" {\n  type    = number\n  default = 3\n}\n` +
        ['tenant-shared-1', 'tenant-shared-2']
          .map((n, i) => `resource "takoform_range_sequence" "s${i + 1}" {\n  name  = "${n}"\n  lower = 1\n  upper = ${upperVar ? 'var.upper' : '3'}\n}\n`)
          .join('');
      writeFileSync(path.join(a.dir, 'main.tf'), PROVIDER_BLOCK + resources(true));

      // A saved plan with trace logs on stderr (TF_LOG without TF_LOG_PATH), then applied
      // with the log in a file: both places the token could be written by a debug line.
      const planned = await tofu(a, 'tenant A: plan -out (TF_LOG=trace on stderr)', ['plan', '-input=false', '-out=create.tfplan'], 0, { TF_LOG: 'trace' });
      if (!/terraform-provider-takoform/.test(planned.stderr))
        violation('tenant A: plan with TF_LOG=trace carried no provider log lines, so scanning it proves nothing');
      await tofu(a, 'tenant A: apply saved plan (TF_LOG_PATH)', ['apply', '-input=false', 'create.tfplan'], 0, trace('a-apply'));
      if (!/host request/.test(safeRead(path.join(logs, 'a-apply.log'))))
        violation('tenant A: the apply trace log has no provider "host request" lines, so scanning it proves nothing');
      await tofu(a, 'tenant A: clean re-plan', ['plan', '-input=false', '-detailed-exitcode'], 0);

      // A refused apply: a saved plan gone stale because the resource changed on the Host.
      await tofu(a, 'tenant A: plan -out (to go stale)', ['plan', '-input=false', '-var', 'upper=5', '-out=stale.tfplan'], 0);
      const current = (await apiA.read(RANGE_SEQUENCE_REF, 'tenant-shared-1')).body as HostResourceView;
      await apiA.put(RANGE_SEQUENCE_REF, 'tenant-shared-1', { lower: 1, upper: 4 }, current.metadata.generation);
      const refused = await tofu(
        a,
        'tenant A: refused apply of a stale plan (TF_LOG_PATH)',
        ['apply', '-input=false', 'stale.tfplan'],
        1,
        trace('a-refused-apply'),
      );
      if (!/Changed on the Host since plan|generation_conflict|revision_conflict/.test(oneLine(refused.stderr))) {
        violation(`tenant A: the stale saved plan was not refused with a "changed on the Host" diagnostic: ${excerpt(refused)}`);
      }
      await tofu(a, 'tenant A: converge after the refusal', ['apply', '-input=false', '-auto-approve'], 0);

      // A failed import (nothing by that name) must not echo credentials either.
      writeFileSync(path.join(a.dir, 'ghost.tf'), `resource "takoform_range_sequence" "ghost" {\n  name  = "no-such-resource"\n  lower = 1\n  upper = 2\n}\n`);
      const ghost = await tofu(
        a,
        'tenant A: failed import (TF_LOG_PATH)',
        ['import', '-input=false', 'takoform_range_sequence.ghost', 'demo/no-such-resource'],
        1,
        trace('a-failed-import'),
      );
      rmSync(path.join(a.dir, 'ghost.tf'));
      if (!/Cannot import non-existent resource/.test(oneLine(ghost.stderr)))
        violation(`tenant A: a failed import did not say "Cannot import non-existent resource": ${excerpt(ghost)}`);

      // ---- tenant isolation: tenant B, same space name, same resource names --------------
      const snapshot = async (api: HostApi, name: string): Promise<Snapshot> => {
        const r = await api.read(RANGE_SEQUENCE_REF, name);
        if (r.status !== 200) return { status: r.status };
        const m = (r.body as HostResourceView).metadata;
        return { status: r.status, uid: m.uid, generation: m.generation, revision: m.revision };
      };
      const names = ['tenant-shared-1', 'tenant-shared-2'];
      const aBefore = await Promise.all(names.map((n) => snapshot(apiA, n)));
      if (aBefore.some((s) => s.status !== 200))
        throw new Error(`setup failed: tenant A's resources are not on the Host (${aBefore.map((s) => s.status).join(', ')})`);
      const checkAUnchanged = async (when: string): Promise<void> => {
        const now = await Promise.all(names.map((n) => snapshot(apiA, n)));
        names.forEach((n, i) => {
          count(report, 'tenant:checks');
          const before = aBefore[i]!;
          const after = now[i]!;
          if (after.status !== 200 || after.uid !== before.uid || after.generation !== before.generation || after.revision !== before.revision) {
            violation(
              `tenant isolation: ${when}, tenant A's "${n}" changed (HTTP ${after.status}, uid ${before.uid} -> ${after.uid ?? '-'}, generation ${before.generation} -> ${after.generation ?? '-'}, revision ${before.revision} -> ${after.revision ?? '-'})`,
            );
          }
        });
      };
      const ref = RANGE_SEQUENCE_REF;
      const b = workspace(
        {
          '.takoform.lock.json': readFileSync(path.join(a.dir, '.takoform.lock.json'), 'utf8'),
          'main.tf':
            PROVIDER_BLOCK +
            `data "takoform_resource" "peek" {\n  api_version        = "${ref.apiVersion}"\n  kind               = "${ref.kind}"\n  definition_version = "${ref.definitionVersion}"\n  schema_digest      = "${ref.schemaDigest}"\n  name               = "tenant-shared-1"\n}\noutput "peek_uid" {\n  value = data.takoform_resource.peek.uid\n}\n`,
        },
        { url: plain.url, token: tokenB },
      );
      const bOutputs: { label: string; text: string }[] = [];
      const tofuB = async (label: string, args: string[], expected: number): Promise<TofuRun> => {
        const r = await tofu(b, label, args, expected);
        bOutputs.push({ label: `${label} (stdout)`, text: r.stdout }, { label: `${label} (stderr)`, text: r.stderr });
        return r;
      };
      setup('tenant B init', await tofuB('tenant B: init', ['init', '-input=false'], 0));
      const peek = await tofuB("tenant B: data source reading tenant A's resource", ['plan', '-input=false'], 1);
      evidence.tenantBDataSourceDiagnostic = scanner.redact(oneLine(peek.stderr));
      count(report, 'tenant:checks');
      if (!/Resource not found/.test(evidence.tenantBDataSourceDiagnostic))
        violation(`tenant isolation: tenant B's data source did not fail with "Resource not found": ${excerpt(peek)}`);

      writeFileSync(path.join(b.dir, 'main.tf'), PROVIDER_BLOCK + resources(false));
      const imported = await tofuB(
        "tenant B: import of tenant A's demo/tenant-shared-1",
        ['import', '-input=false', 'takoform_range_sequence.s1', 'demo/tenant-shared-1'],
        1,
      );
      evidence.tenantBImportDiagnostic = scanner.redact(oneLine(imported.stderr));
      count(report, 'tenant:checks');
      if (!/Cannot import non-existent resource/.test(evidence.tenantBImportDiagnostic))
        violation(`tenant isolation: tenant B's import of tenant A's name did not fail as not found: ${excerpt(imported)}`);
      await checkAUnchanged("after tenant B's failed read and import");

      await tofuB('tenant B: apply the same names', ['apply', '-input=false', '-auto-approve'], 0);
      const bNow = await Promise.all(names.map((n) => snapshot(apiB, n)));
      names.forEach((n, i) => {
        count(report, 'tenant:checks');
        if (bNow[i]!.status !== 200) violation(`tenant isolation: tenant B's "${n}" is not readable by tenant B after its apply (HTTP ${bNow[i]!.status})`);
        else if (bNow[i]!.uid === aBefore[i]!.uid) violation(`tenant isolation: tenant B's "${n}" has tenant A's uid ${aBefore[i]!.uid}`);
      });
      await checkAUnchanged('after tenant B created the same names in the same space');
      await tofuB('tenant B: clean re-plan', ['plan', '-input=false', '-detailed-exitcode'], 0);
      await tofuB('tenant B: destroy', ['destroy', '-input=false', '-auto-approve'], 0);
      const bGone = await Promise.all(names.map((n) => snapshot(apiB, n)));
      names.forEach((n, i) => {
        count(report, 'tenant:checks');
        if (bGone[i]!.status !== 404) violation(`tenant isolation: tenant B's "${n}" still answers HTTP ${bGone[i]!.status} to tenant B after its destroy`);
      });
      await checkAUnchanged("after tenant B's destroy");

      // Nothing of tenant A's (its uids) may have reached tenant B's files or outputs.
      const uidScanner = new SecretScanner(aBefore.map((s, i) => ({ name: `uid of tenant A's "${names[i]}"`, value: s.uid! })));
      const leaks = [...uidScanner.scanDirectory(b.dir), ...bOutputs.flatMap((o) => uidScanner.scanText(`tenant B: ${o.label}`, o.text))];
      count(report, 'tenant:checks');
      for (const f of leaks) violation(`tenant isolation: ${describeFinding(f)}`);

      await tofu(a, 'tenant A: destroy (TF_LOG_PATH)', ['destroy', '-input=false', '-auto-approve'], 0, trace('a-destroy'));
      const aGone = await Promise.all(names.map((n) => snapshot(apiA, n)));
      if (aGone.some((s) => s.status !== 404)) violation(`tenant A: destroy left resources on the Host (${aGone.map((s) => s.status).join(', ')})`);
    };

    // ---- lane 2: the token in the provider block, through a variable ---------------------
    const laneVariableToken = async (): Promise<void> => {
      const config = (ephemeral: boolean) =>
        `terraform {\n  required_providers {\n    takoform = { source = "registry.takoform.dev/takoform/takoform", version = "0.2.0" }\n  }\n}\n` +
        `variable "takoform_token" {\n  type      = string\n  sensitive = true\n${ephemeral ? '  ephemeral = true\n' : ''}}\n` +
        `provider "takoform" {\n  token = var.takoform_token\n}\n` +
        `resource "takoform_range_sequence" "v" {\n  name  = "variable-token-seq"\n  lower = 2\n  upper = 5\n}\n`;
      // TAKOFORM_TOKEN is empty, so a run that works got its token from the variable.
      const v = workspace({ '.takoform.lock.json': committedLock, 'main.tf': config(false) }, { url: plain.url, token: '' });
      const varEnv = { TF_VAR_takoform_token: tokenA };
      setup('variable-token init', await tofu(v, 'variable token: init', ['init', '-input=false'], 0));

      // OpenTofu stores every non-ephemeral root variable's value in a saved plan, sensitive
      // or not; the provider cannot prevent that. Record what this OpenTofu does, keep that
      // plan out of the scanned directories, and test the configuration that keeps the
      // token out of plans: a variable that is also `ephemeral`.
      const sensitiveOnly = await tofu(v, 'variable token (sensitive only): plan -out', ['plan', '-input=false', '-out=sensitive-only.tfplan'], 0, varEnv);
      if (sensitiveOnly.code === 0) {
        const planFile = path.join(v.dir, 'sensitive-only.tfplan');
        const probe = new SecretScanner([{ name: 'tenant A token', value: tokenA }]);
        const found = probe.scanFile(planFile);
        evidence.sensitiveVariableInSavedPlan = found.length > 0;
        if (found.length > 0) {
          report.notes.push(
            `OpenTofu writes a sensitive (non-ephemeral) variable's value into a saved plan (${[...new Set(found.map((f) => f.where.split('!')[1] ?? 'archive'))].join(', ')}); declare the token variable \`ephemeral = true\` (tested) or use TAKOFORM_TOKEN`,
          );
        }
        rmSync(planFile);
      }

      writeFileSync(path.join(v.dir, 'main.tf'), config(true));
      await tofu(v, 'variable token (ephemeral): plan -out (TF_LOG_PATH)', ['plan', '-input=false', '-out=v.tfplan'], 0, { ...varEnv, ...trace('v-plan') });
      await tofu(v, 'variable token (ephemeral): apply saved plan (TF_LOG_PATH)', ['apply', '-input=false', 'v.tfplan'], 0, { ...varEnv, ...trace('v-apply') });
      const onHost = await new HostApi(plain.url, tokenA).read(RANGE_SEQUENCE_REF, 'variable-token-seq');
      if (onHost.status !== 200) violation(`variable token: the apply did not create "variable-token-seq" on the Host (HTTP ${onHost.status})`);
      await tofu(v, 'variable token (ephemeral): clean re-plan', ['plan', '-input=false', '-detailed-exitcode'], 0, varEnv);
      await tofu(v, 'variable token (ephemeral): destroy', ['destroy', '-input=false', '-auto-approve'], 0, varEnv);
    };

    // ---- lane 3: TLS, redirects, plain http ----------------------------------------------
    const laneTransport = async (): Promise<void> => {
      const t = workspace(
        {
          '.takoform.lock.json': committedLock,
          'main.tf': PROVIDER_BLOCK + `resource "takoform_range_sequence" "t" {\n  name  = "tls-seq"\n  lower = 1\n  upper = 2\n}\n`,
        },
        { url: tls.url, token: tokenA },
      );
      const withCa = { TAKOFORM_CA_FILE: TLS_CERT };
      const withoutCa = { TAKOFORM_CA_FILE: '' };
      // The Host writes a request's log line after answering, and the line travels through
      // a pipe: wait until the count stops moving so earlier requests are not misattributed.
      const requests = async (): Promise<number> => {
        const now = (): number => tls.stderr().match(HOST_REQUEST_LINE)?.length ?? 0;
        let last = now();
        for (let stable = 0; stable < 3;) {
          await new Promise((r) => setTimeout(r, 100));
          const n = now();
          stable = n === last ? stable + 1 : 0;
          last = n;
        }
        return last;
      };
      const noRequestSince = async (before: number, what: string): Promise<void> => {
        count(report, 'tls:checks');
        const after = await requests();
        const lines = tls.stderr().match(HOST_REQUEST_LINE) ?? [];
        if (after !== before)
          violation(
            `TLS: ${what} still reached the Host although its certificate is not trusted: ${lines
              .slice(before)
              .map((l) => l.trim())
              .join('; ')}`,
          );
      };

      let before = await requests();
      const lockNoCa = await providerCommand(
        t,
        'TLS: catalog lock without the CA',
        ['catalog', 'lock', '--out', 'no-ca.lock.json', ...PACKAGE_FLAGS],
        1,
        withoutCa,
      );
      evidence.catalogLockCertificateError = scanner.redact(oneLine(lockNoCa.stderr));
      count(report, 'tls:checks');
      if (!/certificate/i.test(lockNoCa.stderr)) violation(`TLS: catalog lock without the CA did not fail with a certificate error: ${excerpt(lockNoCa)}`);
      await noRequestSince(before, 'catalog lock without the CA');
      await providerCommand(t, 'TLS: catalog lock with TAKOFORM_CA_FILE', ['catalog', 'lock', '--out', 'tls.lock.json', ...PACKAGE_FLAGS], 0, withCa);
      count(report, 'tls:checks');

      setup('TLS init', await tofu(t, 'TLS: init', ['init', '-input=false'], 0));
      await tofu(t, 'TLS: apply with TAKOFORM_CA_FILE', ['apply', '-input=false', '-auto-approve'], 0, withCa);
      const agent = new Agent({ connect: { ca: readFileSync(TLS_CERT, 'utf8') } });
      closers.push(() => agent.close());
      const readTls = async (): Promise<number> => {
        const q = new URLSearchParams({
          space: 'demo',
          definitionVersion: RANGE_SEQUENCE_REF.definitionVersion,
          schemaDigest: RANGE_SEQUENCE_REF.schemaDigest,
        });
        const res = await request(`${tls.url}${API}/resources/${RANGE_SEQUENCE_REF.apiVersion}/${RANGE_SEQUENCE_REF.kind}/tls-seq?${q}`, {
          dispatcher: agent,
          headers: { authorization: `Bearer ${tokenA}` },
        });
        await res.body.dump();
        return res.statusCode;
      };
      count(report, 'tls:checks');
      const created = await readTls();
      if (created !== 200) violation(`TLS: apply with TAKOFORM_CA_FILE did not create "tls-seq" on the Host (HTTP ${created})`);

      before = await requests();
      const noCa = await tofu(t, 'TLS: plan without the CA', ['plan', '-input=false'], 1, withoutCa);
      evidence.certificateDiagnostic = scanner.redact(oneLine(noCa.stderr));
      count(report, 'tls:checks');
      // Reported once, where the provider is configured (issue 13): "Host certificate not trusted".
      if (!/Host certificate not trusted|Host unreachable/.test(evidence.certificateDiagnostic) || !/certificate/i.test(evidence.certificateDiagnostic)) {
        violation(`TLS: plan without the CA did not fail with a certificate diagnostic: ${excerpt(noCa)}`);
      }
      await noRequestSince(before, 'tofu plan without the CA');
      await tofu(t, 'TLS: destroy with TAKOFORM_CA_FILE', ['destroy', '-input=false', '-auto-approve'], 0, withCa);
      count(report, 'tls:checks');
      const destroyed = await readTls();
      if (destroyed !== 404) violation(`TLS: destroy with TAKOFORM_CA_FILE left "tls-seq" on the Host (HTTP ${destroyed})`);

      // A redirect from the "Host" (a proxy answering 307 to everything) towards a second
      // listener: the token must never get there; ideally nothing does.
      const elsewhere = await startRecorder('127.0.0.1');
      closers.push(() => elsewhere.close());
      const proxy = await FaultProxy.start(elsewhere.url); // upstream never used: every request is answered 307
      closers.push(() => proxy.close());
      proxy.add({ times: 1_000_000, fault: { kind: 'respond', status: 307, headers: { location: `${elsewhere.url}${API}/resources/stolen` } } });
      const redirected = await tofu(t, 'redirect: plan through a Host answering 307', ['plan', '-input=false'], 1, { TAKOFORM_ENDPOINT: proxy.url });
      evidence.redirectDiagnostic = scanner.redact(oneLine(redirected.stderr));
      await providerCommand(t, 'redirect: catalog lock through a Host answering 307', ['catalog', 'lock', '--out', 'redirect.lock.json'], 1, {
        TAKOFORM_ENDPOINT: proxy.url,
      });
      count(report, 'tls:checks');
      if (!/redirect \(HTTP 307\) refused/.test(evidence.redirectDiagnostic))
        violation(`redirect: tofu plan did not fail with a "redirect (HTTP 307) refused" diagnostic: ${excerpt(redirected)}`);
      if (proxy.seen.length === 0) violation('redirect: the provider never reached the redirecting Host, so the check proves nothing');
      const withToken = elsewhere.requests.filter((r) => scanner.redact(JSON.stringify(r)) !== JSON.stringify(r));
      if (withToken.length > 0) violation(`redirect: the redirect target received ${withToken.length} request(s) carrying a token`);
      else if (elsewhere.requests.length > 0)
        violation(`redirect: the redirect target received ${elsewhere.requests.length} request(s) (without the token): a Host's redirect must not be followed`);

      // Plain http to an address that is not loopback: refused before any connection. The
      // trap listens on every interface, and the endpoint names this machine's own
      // non-loopback address, so a connection attempt would be seen, not just time out.
      const trap = await startRecorder('0.0.0.0');
      closers.push(() => trap.close());
      const ip = nonLoopbackIPv4();
      const target = ip ? `http://${ip}:${trap.port}` : 'http://10.255.255.1:1';
      if (!ip) report.notes.push('no non-loopback IPv4 address on this machine: plain http was tried against 10.255.255.1:1');
      for (const endpoint of [target, 'http://example.invalid']) {
        const started = Date.now();
        const refusedHttp = await tofu(t, `plain http: plan against ${endpoint}`, ['plan', '-input=false'], 1, {
          TAKOFORM_ENDPOINT: endpoint,
          TAKOFORM_CA_FILE: '',
        });
        const text = scanner.redact(oneLine(refusedHttp.stderr));
        if (endpoint === target) evidence.plainHttpDiagnostic = text;
        count(report, 'tls:checks');
        if (!/plain http is allowed only for a loopback Host/.test(text))
          violation(`plain http: tofu plan against ${endpoint} was not refused with "plain http is allowed only for a loopback Host": ${excerpt(refusedHttp)}`);
        log(`plain http refusal for ${endpoint} took ${Date.now() - started} ms`);
      }
      await providerCommand(t, `plain http: catalog lock against ${target}`, ['catalog', 'lock', '--out', 'plain.lock.json'], 1, { TAKOFORM_ENDPOINT: target });
      count(report, 'tls:checks');
      if (trap.connections > 0) violation(`plain http: ${trap.connections} connection(s) reached ${target}; the provider must refuse before connecting`);
    };

    const lanes: [string, () => Promise<void>][] = [
      ['env token + tenants', laneEnvTokenAndTenants],
      ['variable token', laneVariableToken],
      ['TLS, redirect, plain http', laneTransport],
    ];
    // Independent lanes (own workspaces, own resource names) run side by side to keep the
    // wall time modest; a setup failure in any of them fails the scenario.
    const results = await Promise.allSettled(
      lanes.map(async ([name, lane]) => {
        const started = Date.now();
        await lane();
        log(`lane "${name}" done in ${Date.now() - started} ms`);
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw new Error(scanner.redact(failed.reason instanceof Error ? failed.reason.message : String(failed.reason)));

    // The Host's own log (stderr): one line per request, plus internal errors.
    for (const [label, host] of [
      ['plain Host', plain],
      ['TLS Host', tls],
    ] as const) {
      const text = host.stderr();
      if ((text.match(HOST_REQUEST_LINE)?.length ?? 0) === 0) violation(`${label}: its log has no request lines, so scanning it proves nothing`);
      scanner.scanText(`${label} log (stderr)`, text);
    }
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await Promise.all(hosts.map((h) => h.stop()));
  }

  // Everything every command left on disk: state files and backups, saved plans (each zip
  // member), trace logs, .terraform/, .terraform.lock.hcl, the catalog lock files.
  for (const dir of scannedDirs) scanner.scanDirectory(dir);
  for (const f of scanner.findings) violation(`secret leak: ${describeFinding(f)}`);
  for (const u of scanner.unreadable) violation(`secret scan: could not read the zip ${u}, so its members were not scanned`);
  if (scanner.zipMembersScanned === 0) violation('secret scan: no saved plan (zip) was scanned');
  count(report, 'secrets:files-scanned', scanner.filesScanned);
  count(report, 'secrets:bytes-scanned', scanner.bytesScanned);
  count(report, 'secrets:outputs-scanned', scanner.outputsScanned);
  count(report, 'secrets:zip-members-scanned', scanner.zipMembersScanned);
  // Keep the evidence when something leaked (the violations name the files); else clean up,
  // including the Hosts' folders, whose tokens.json holds the tokens.
  if (report.violations.length === 0) {
    for (const dir of [base, ...scannedDirs, ...hosts.map((h) => h.dir)]) rmSync(dir, { recursive: true, force: true });
  } else {
    report.notes.push(`files kept for inspection under ${base} and the workspace folders named above`);
  }
  return { report, evidence };
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function nonLoopbackIPv4(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

interface Recorder {
  readonly url: string;
  readonly port: number;
  readonly requests: { method: string; url: string; headers: IncomingHttpHeaders }[];
  /** TCP connections accepted, whether or not a request followed. */
  connections: number;
  close(): Promise<void>;
}

/** A listener that records every connection and request and answers 404. */
async function startRecorder(host: string): Promise<Recorder> {
  const sockets = new Set<Socket>();
  const rec: Recorder = {
    url: '',
    port: 0,
    requests: [],
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    rec.requests.push({ method: req.method ?? '?', url: req.url ?? '?', headers: req.headers });
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{}');
  });
  server.on('connection', (s: Socket) => {
    rec.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(rec, { port, url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}` });
}
