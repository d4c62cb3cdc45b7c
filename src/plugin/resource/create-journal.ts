// A journal of the creates this working directory has sent, so that a create interrupted
// after the Host committed it (the CLI or the provider killed, the answer lost) is resumed by
// the next run instead of failing on "already exists" — and so that nothing else ever is.
//
// Why a journal: core writes state only when a create returns. If the process dies after the
// Host created the resource, the next run plans a create again. The Host API's answer to a
// lost response is the idempotency record: the same request under the same Idempotency-Key
// replays the recorded 201 (same uid) instead of executing again. Replaying needs the exact
// request — the prepare binding the Host minted and the attempt id folded into the key
// (host-client/idempotency.ts) — which nothing else keeps. So before each create we write
// them here, and a later create of the same name and spec in the same scope sends that
// attempt again.
//
// Ownership is the point of the design. A replay hands the first caller's resource to
// whoever sends the same key, so an entry may only ever be resumed by the attempt that wrote
// it, in a later process:
// * the key's attempt id is random per create, so another block, state, workspace, working
//   directory or machine never sends the same key (it gets "already exists" instead);
// * entries live in a directory of their scope — the CLI workspace and the backend
//   configuration of this data directory — and carry the scope and the Host endpoint, which
//   are checked again when read: another workspace or state never resumes them;
// * entries this process wrote are never resumed by this process (two blocks of one
//   configuration with one name must not share an attempt);
// * the entries of a provider process still running (another configuration of this provider,
//   an alias, runs beside this one) are never read by another: they are in its own log until
//   it ends;
// * an entry whose create was answered is removed when core shuts the provider down
//   normally (the answer is then in core's hands and its state), when a refresh sees the
//   resource in state, or when the resource is found gone. After `state rm`, nothing is left
//   to resume, so the next create is refused like any other.
// A corrupt, foreign or stale entry is ignored with a warning and removed, never trusted.
//
// Cost matters: a create of a thousand resources writes a thousand entries, and file-system
// calls are the dearest part of a create after the Host's answer. So a process appends its
// entries to one file of its own (`<pid>-<random>.log`, one JSON line per create): an append costs
// a few microseconds where creating a file costs 0.1–0.3 ms of CPU on ext4 (measured: 1000
// new files 130–320 ms, 1000 appends 2–5 ms). At a normal shutdown the log goes, and only
// the creates still unanswered (their answer never came) stay, each as an entry file of its
// own (`<name key>.<attempt>.json`); one removed while the process runs (its create refused)
// is marked removed by a line of the log. A log left by a process that ended without a normal
// shutdown is turned into such files by the next process that lists the directory, before it
// reads anything, so every later step (claim, forget, remove) works on one file per entry. Nothing
// is written to a temporary file and renamed: a line torn by a kill does not parse and is
// dropped, which only costs the automatic resume, and a torn entry was never sent. The
// directory is listed once per process, and nothing is fsynced (the journal must survive a
// killed process, which the page cache does, not the loss of the machine, whose working
// directory goes with it).
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { isAttemptId, sameFormRef, type FormRef } from '../../host-client/index.js';

/** What separates one state from another in one data directory. */
export interface JournalScope {
  /** The CLI workspace (TF_WORKSPACE, else the data directory's `environment` file, else "default"). */
  readonly workspace: string;
  /** The backend configuration recorded by `init` (type and hash), "" for the implied local backend. */
  readonly backend: string;
  /** The Host origin the provider is configured for. */
  readonly endpoint: string;
}

/** One create as it was sent: everything needed to send it again byte for byte. */
export interface PendingCreate extends JournalScope {
  readonly format: typeof ENTRY_FORMAT;
  readonly formRef: FormRef;
  readonly space: string;
  readonly name: string;
  /** JCS digest of the spec that was sent: a resume must send the same spec. */
  readonly specDigest: string;
  /** The Host's prepare binding the create was sent with. */
  readonly review: { readonly prepareDigest: string; readonly specDigest: string };
  /** The attempt id folded into the create's Idempotency-Key. */
  readonly attempt: string;
  readonly writtenAt: string;
}

export type CreateIntent = Pick<PendingCreate, 'formRef' | 'space' | 'name' | 'specDigest' | 'review' | 'attempt'>;

/** An entry that was found but must not be used, and why (for a warning). */
export interface IgnoredEntry {
  /** The entry's file, or which create it recorded. */
  readonly what: string;
  readonly reason: string;
}

const ENTRY_FORMAT = 'takoform-pending-create/2';

export class CreateJournal {
  /** Files present in the scope directory, by name key; listed once per process. */
  private listed: Map<string, Set<string>> | undefined;
  /** Files this process wrote: never resumed here (see the header). */
  private readonly ownFiles = new Set<string>();
  /** Files of this process's creates that were answered: removed at a normal shutdown. */
  private readonly answered = new Set<string>();
  /** Files resumed by this process: never resumed twice. */
  private readonly claimed = new Set<string>();
  /** This process's log (see the header), opened at its first entry. */
  private log: { readonly fd: number; readonly file: string } | undefined;
  /** This process's entries still to keep, by entry file name: written out as files at a normal shutdown. */
  private readonly ownEntries = new Map<string, string>();
  private made = false;

  /** `dir` undefined: a disabled journal (nothing recorded, nothing resumed). */
  private constructor(
    private readonly dir: string | undefined,
    private readonly scope: JournalScope,
  ) {}

  static disabled(): CreateJournal {
    return new CreateJournal(undefined, { workspace: '', backend: '', endpoint: '' });
  }

  /**
   * The journal of this working directory's data directory (TF_DATA_DIR, default
   * `.terraform`), for the current workspace and backend, and the configured endpoint.
   */
  static inDataDir(endpoint: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): CreateJournal {
    if (env.TAKOFORM_CREATE_JOURNAL === 'off') return CreateJournal.disabled();
    const dataDir = path.resolve(cwd, env.TF_DATA_DIR || '.terraform');
    const scope: JournalScope = { workspace: currentWorkspace(dataDir, env), backend: backendConfiguration(dataDir), endpoint };
    const scopeKey = hash(JSON.stringify([scope.workspace, scope.backend])).slice(0, 24);
    return new CreateJournal(path.join(dataDir, 'takoform', 'pending-creates', scopeKey), scope);
  }

  get enabled(): boolean {
    return this.dir !== undefined;
  }

  get currentScope(): JournalScope {
    return this.scope;
  }

  /** Records a create before it is sent; returns the entry as written. */
  async record(intent: CreateIntent): Promise<PendingCreate> {
    const entry: PendingCreate = { format: ENTRY_FORMAT, ...this.scope, ...intent, writtenAt: new Date().toISOString() };
    if (!this.dir) return entry;
    const dir = this.dir;
    const file = this.fileName(intent.formRef, intent.space, intent.name, intent.attempt);
    if (!this.made) mkdirSync(dir, { recursive: true });
    this.made = true;
    // Synchronous on purpose: the entry must be written before the create is sent anyway, and
    // one system call on this thread costs far less than the thread pool's round trip.
    if (!this.log) {
      const log = `${process.pid}-${randomBytes(16).toString('hex')}.log`;
      this.log = { fd: openSync(path.join(dir, log), 'a'), file: log };
    }
    const text = JSON.stringify(entry);
    writeSync(this.log.fd, `${text}\n`);
    this.ownEntries.set(file, text);
    this.ownFiles.add(file);
    this.filesOf(nameKeyOf(file)).add(file);
    return entry;
  }

  /**
   * The entries an earlier process of this scope left for this name, oldest first, each
   * claimed so that no other create of this process resumes it. Entries that must not be
   * trusted are removed and reported in `ignored`.
   */
  claimPending(formRef: FormRef, space: string, name: string): { entries: PendingCreate[]; ignored: IgnoredEntry[] } {
    const entries: PendingCreate[] = [];
    const ignored: IgnoredEntry[] = [];
    if (!this.dir || this.listing().size === 0) return { entries, ignored };
    const files = this.listing().get(this.nameKey(formRef, space, name));
    if (!files) return { entries, ignored };
    for (const file of [...files]) {
      if (this.ownFiles.has(file) || this.claimed.has(file)) continue;
      const verdict = this.readEntry(file, formRef, space, name);
      if (typeof verdict === 'string') {
        ignored.push({ what: path.join(this.dir, file), reason: verdict });
        this.remove(file);
        continue;
      }
      this.claimed.add(file);
      entries.push(verdict);
    }
    entries.sort((a, b) => a.writtenAt.localeCompare(b.writtenAt));
    return { entries, ignored };
  }

  /** The create of `entry` was answered (created, or resumed): its entry goes at a normal shutdown. */
  answeredBy(entry: PendingCreate): void {
    if (this.dir) this.answered.add(this.fileName(entry.formRef, entry.space, entry.name, entry.attempt));
  }

  /** Removes one entry now: its create was refused (nothing was created), or it was superseded. */
  forget(entry: PendingCreate): void {
    if (this.dir) this.remove(this.fileName(entry.formRef, entry.space, entry.name, entry.attempt));
  }

  /** Whether an earlier process left a create of this name (a create that apply may resume). */
  mayResume(formRef: FormRef, space: string, name: string): boolean {
    if (!this.dir || this.listing().size === 0) return false;
    return [...(this.listing().get(this.nameKey(formRef, space, name)) ?? [])].some((file) => !this.ownFiles.has(file));
  }

  /** Removes every entry of this name: the resource is in state (seen by a refresh), or gone. */
  forgetName(formRef: FormRef, space: string, name: string): void {
    // Nothing pending (the usual case): no name key to hash. A refresh of N resources asks N times.
    if (!this.dir || this.listing().size === 0) return;
    const files = this.listing().get(this.nameKey(formRef, space, name));
    if (files) for (const file of [...files]) if (!this.ownFiles.has(file) || this.answered.has(file)) this.remove(file);
  }

  /**
   * Core shut the provider down normally: every answered create is in core's hands (and its
   * state), so its entry is no longer needed. Synchronous: the process exits right after.
   */
  closeNormally(): void {
    for (const file of this.answered) this.remove(file, false);
    this.answered.clear();
    if (!this.log) return;
    // The creates whose answer never came outlive this process, each as an entry of its own;
    // written before the log goes, so that a kill in between loses none (a later listing
    // finds both and keeps one).
    for (const [file, text] of this.ownEntries) writeFileSync(path.join(this.dir!, file), text);
    closeSync(this.log.fd);
    removeFile(path.join(this.dir!, this.log.file));
    this.log = undefined;
  }

  /** Reads and checks one entry: the entry, or why it must not be used. */
  private readEntry(file: string, formRef: FormRef, space: string, name: string): PendingCreate | string {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path.join(this.dir!, file), 'utf8'));
    } catch (e) {
      return `it cannot be read (${e instanceof Error ? e.message : String(e)}); a create torn by a kill was never sent`;
    }
    const o = raw as Partial<PendingCreate> | null;
    if (!o || typeof o !== 'object' || o.format !== ENTRY_FORMAT) return 'it is not a pending-create entry of this provider version';
    if (
      !isAttemptId(o.attempt) ||
      typeof o.specDigest !== 'string' ||
      typeof o.review?.prepareDigest !== 'string' ||
      typeof o.review?.specDigest !== 'string' ||
      typeof o.writtenAt !== 'string'
    ) {
      return 'it is incomplete';
    }
    if (o.workspace !== this.scope.workspace || o.backend !== this.scope.backend)
      return `it belongs to another workspace or state (workspace ${JSON.stringify(o.workspace)})`;
    if (o.endpoint !== this.scope.endpoint) return `it was sent to another Host (${String(o.endpoint)})`;
    if (!o.formRef || !sameFormRef(o.formRef, formRef) || o.space !== space || o.name !== name) return 'it names another resource';
    if (file !== this.fileName(formRef, space, name, o.attempt)) return 'its file name does not match its content';
    return o as PendingCreate;
  }

  /**
   * Removes an entry. One of this process's own is only in its log: it is dropped, and, unless
   * the log is about to go (`mark` false), marked removed there, so that a kill does not bring
   * it back when a later process splits the log.
   */
  private remove(file: string, mark = true): void {
    if (this.ownEntries.delete(file)) {
      if (mark && this.log) writeSync(this.log.fd, `${JSON.stringify({ removed: file })}\n`);
    } else removeFile(path.join(this.dir!, file));
    this.listing().get(nameKeyOf(file))?.delete(file);
    this.answered.delete(file);
  }

  private filesOf(key: string): Set<string> {
    const listing = this.listing();
    let files = listing.get(key);
    if (!files) listing.set(key, (files = new Set()));
    return files;
  }

  /** The entries present, listed once per process: refreshes check thousands of names. */
  private listing(): Map<string, Set<string>> {
    if (!this.listed) {
      this.listed = new Map();
      let names: string[] = [];
      try {
        names = readdirSync(this.dir!);
      } catch {
        // no directory yet: nothing pending
      }
      for (const file of names) {
        const m = ENTRY_FILE.exec(file);
        if (m) this.filesOf(m[1]!).add(file);
        else if (file !== this.log?.file && isLogOfEndedProcess(file)) this.splitLog(file);
      }
    }
    return this.listed;
  }

  /**
   * A log another process left without a normal shutdown (killed, or its CLI was): each entry
   * in it that it did not mark removed becomes an entry file, as that process's shutdown would
   * have written it, and the log goes. Its answered creates become files too; a refresh that sees them in state
   * removes them, as it removes the files of any interrupted run.
   */
  private splitLog(log: string): void {
    let text: string;
    try {
      text = readFileSync(path.join(this.dir!, log), 'utf8');
    } catch {
      return; // gone meanwhile
    }
    const entries = new Map<string, string>();
    for (const line of text.split('\n')) {
      let o: (Partial<PendingCreate> & { removed?: unknown }) | null;
      try {
        o = JSON.parse(line) as typeof o;
      } catch {
        continue; // the line a kill tore (never sent), or the end of the log
      }
      if (o && typeof o.removed === 'string') {
        entries.delete(o.removed); // its create was refused, or the entry superseded
        continue;
      }
      // Only what names the file is read here (the entry's own Host, so that a process of
      // another endpoint in this scope leaves it to its own); readEntry checks the rest when
      // it is claimed.
      if (!o || typeof o !== 'object' || !o.formRef || typeof o.space !== 'string' || typeof o.name !== 'string' || typeof o.endpoint !== 'string') continue;
      if (!isAttemptId(o.attempt)) continue;
      entries.set(this.fileName(o.formRef, o.space, o.name, o.attempt, o.endpoint), line);
    }
    for (const [file, line] of entries) {
      writeFileSync(path.join(this.dir!, file), line);
      this.filesOf(nameKeyOf(file)).add(file);
    }
    removeFile(path.join(this.dir!, log));
  }

  /** The name key of an address at `endpoint` (this process's Host unless told: another Host's entries keep theirs). */
  private nameKey(formRef: FormRef, space: string, name: string, endpoint = this.scope.endpoint): string {
    return hash(JSON.stringify([endpoint, formRef.apiVersion, formRef.kind, formRef.definitionVersion, formRef.schemaDigest, space, name])).slice(0, 32);
  }

  private fileName(formRef: FormRef, space: string, name: string, attempt: string, endpoint = this.scope.endpoint): string {
    return `${this.nameKey(formRef, space, name, endpoint)}.${attempt}.json`;
  }
}

const ENTRY_FILE = /^([0-9a-f]{32})\.([0-9a-f]{32})\.json$/;

/** The name key of an entry file: its name's first part (`<name key>.<attempt>.json`). */
const nameKeyOf = (file: string): string => file.slice(0, file.indexOf('.'));
const LOG_FILE = /^([0-9]+)-[0-9a-f]{32}\.log$/;

/**
 * A log whose process has ended. The log of a running process is left alone: another provider
 * process of this scope runs beside this one whenever a configuration has two configurations
 * of this provider (aliases), and its entries are its own until it ends. A pid reused since
 * only hides a log (its creates are refused as "already exists", with the import id), never
 * hands one over.
 */
function isLogOfEndedProcess(file: string): boolean {
  const m = LOG_FILE.exec(file);
  if (!m) return false;
  const pid = Number(m[1]);
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH'; // EPERM: running, as another user
  }
  // It exists, but a killed provider whose CLI was killed too may be a zombie for good where
  // the container's first process reaps nobody: that one has ended.
  try {
    return /^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false; // no /proc (macOS): running
  }
}

/** unlink, where a file already gone is fine. Not rmSync: its checks cost three times the unlink. */
function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The workspace core runs in, as core itself decides it (TF_WORKSPACE wins over `workspace select`). */
export function currentWorkspace(dataDir: string, env: NodeJS.ProcessEnv): string {
  if (env.TF_WORKSPACE) return env.TF_WORKSPACE;
  try {
    const selected = readFileSync(path.join(dataDir, 'environment'), 'utf8').trim();
    if (selected) return selected;
  } catch {
    // never selected: the default workspace
  }
  return 'default';
}

/** The backend `init` configured for this data directory: type and configuration hash. */
export function backendConfiguration(dataDir: string): string {
  try {
    const recorded = JSON.parse(readFileSync(path.join(dataDir, 'terraform.tfstate'), 'utf8')) as {
      backend?: { type?: unknown; hash?: unknown; config?: unknown };
    };
    const b = recorded.backend;
    if (!b) return '';
    return hash(JSON.stringify([b.type ?? '', b.hash ?? '', b.config ?? null]));
  } catch {
    return ''; // the implied local backend
  }
}
