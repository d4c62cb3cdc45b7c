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
// * an entry whose create was answered is removed when core shuts the provider down
//   normally (the answer is then in core's hands and its state), when a refresh sees the
//   resource in state, or when the resource is found gone. After `state rm`, nothing is left
//   to resume, so the next create is refused like any other.
// A corrupt, foreign or stale entry is ignored with a warning and removed, never trusted.
//
// Cost matters: a create of a thousand resources writes a thousand entries, and file-system
// calls are the dearest part of a create after the Host's answer. So one entry is one plain
// write (no temporary file and rename: an entry torn by a kill does not parse and is
// ignored, which only costs the automatic resume, and a torn entry was never sent), the
// directory is listed once per process, and nothing is fsynced (the journal must survive a
// killed process, which the page cache does, not the loss of the machine, whose working
// directory goes with it).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
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
    // three system calls on this thread cost a third of what the asynchronous writeFile costs
    // (its open, write and close each go through the thread pool and back; 1000 entries: ~80
    // against ~220 ms of CPU).
    writeFileSync(path.join(dir, file), JSON.stringify(entry));
    this.ownFiles.add(file);
    this.filesOf(this.nameKey(intent.formRef, intent.space, intent.name)).add(file);
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
    for (const file of this.answered) this.remove(file);
    this.answered.clear();
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

  private remove(file: string): void {
    try {
      unlinkSync(path.join(this.dir!, file)); // not rmSync: its checks cost three times the unlink
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    this.listing()
      .get(file.slice(0, file.indexOf('.')))
      ?.delete(file); // the name key is the file name's first part
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
        const m = /^([0-9a-f]{32})\.([0-9a-f]{32})\.json$/.exec(file);
        if (m) this.filesOf(m[1]!).add(file);
      }
    }
    return this.listed;
  }

  private nameKey(formRef: FormRef, space: string, name: string): string {
    return hash(JSON.stringify([this.scope.endpoint, formRef.apiVersion, formRef.kind, formRef.definitionVersion, formRef.schemaDigest, space, name])).slice(
      0,
      32,
    );
  }

  private fileName(formRef: FormRef, space: string, name: string, attempt: string): string {
    return `${this.nameKey(formRef, space, name)}.${attempt}.json`;
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
