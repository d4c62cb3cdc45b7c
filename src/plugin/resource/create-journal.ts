// A small journal of creates the provider has sent, so that a create interrupted after the
// Host committed it (the CLI or the provider killed, the network lost before the answer)
// is resumed by the next run instead of failing on "already exists".
//
// Why a journal: core only writes state when a create returns. If the process dies after
// the Host has created the resource, the next run plans a create again, and the Host's
// prepare refuses it because the name is held. The Host API's own answer to a lost response
// is the idempotency record: the same request with the same Idempotency-Key replays the
// recorded 201 (same uid) instead of executing again. Replaying needs the exact request,
// including the prepare binding minted by the Host, which nothing else keeps. So before each
// create we write what is needed to send it again, byte for byte, into the CLI's data
// directory (`.terraform/takoform/pending-creates/`), and remove it once a refresh shows the
// state holds that resource (or it was deleted).
//
// Cost matters: a create of a thousand resources writes a thousand entries, and file-system
// calls are the dearest part of a create after the Host's answer. So one entry is one plain
// write (no temporary file and rename: an entry torn by a kill does not parse and counts as
// absent, which only costs the automatic resume), the directory is made once per process,
// and nothing is fsynced (the journal must survive a killed process, which the page cache
// does, not the loss of the machine, whose working directory goes with it). Entries are
// removed when the resource is deleted (or found gone); an entry of a resource that lives on
// is harmless — it is consulted only when that name is created again, and then checked.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { writeFile } from 'node:fs';
import path from 'node:path';
import type { FormRef } from '../../host-client/index.js';

export interface PendingCreate {
  readonly formRef: FormRef;
  readonly space: string;
  readonly name: string;
  /** JCS digest of the spec that was sent: a resume must send the same spec. */
  readonly specDigest: string;
  /** The Host's prepare binding the create was sent with. */
  readonly review: { readonly prepareDigest: string; readonly specDigest: string };
}

export class CreateJournal {
  private known: Set<string> | undefined;
  /** Removals under way, by file: a new entry for the same name waits for them. */
  private readonly removals = new Map<string, Promise<void>>();
  private made: Promise<void> | undefined;

  /** `dir` undefined: a disabled journal (nothing recorded, nothing resumed). */
  constructor(private readonly dir: string | undefined) {}

  /** The CLI's data directory (TF_DATA_DIR, default `.terraform` in the working directory). */
  static inDataDir(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): CreateJournal {
    if (env.TAKOFORM_CREATE_JOURNAL === 'off') return new CreateJournal(undefined);
    return new CreateJournal(path.resolve(cwd, env.TF_DATA_DIR || '.terraform', 'takoform', 'pending-creates'));
  }

  get enabled(): boolean {
    return this.dir !== undefined;
  }

  /** Records a create before it is sent. */
  async record(entry: PendingCreate): Promise<void> {
    if (!this.dir) return;
    const dir = this.dir;
    const file = this.fileName(entry.formRef, entry.space, entry.name);
    await this.removals.get(file);
    this.made ??= mkdir(dir, { recursive: true }).then(() => undefined);
    await this.made;
    // The callback API: no FileHandle object per write (measurably cheaper than fs/promises).
    await new Promise<void>((resolve, reject) => writeFile(path.join(dir, file), JSON.stringify(entry), (e) => (e ? reject(e) : resolve())));
    this.listing().add(file);
  }

  find(formRef: FormRef, space: string, name: string): PendingCreate | undefined {
    if (!this.dir) return undefined;
    const file = this.fileName(formRef, space, name);
    if (!this.listing().has(file)) return undefined;
    try {
      const entry = JSON.parse(readFileSync(path.join(this.dir, file), 'utf8')) as PendingCreate;
      if (entry.name !== name || entry.space !== space || typeof entry.review?.prepareDigest !== 'string') return undefined;
      return entry;
    } catch {
      return undefined; // unreadable: behave as if nothing was journaled
    }
  }

  /** Forgets the entry of this name: the resource was deleted, or found gone. */
  forget(formRef: FormRef, space: string, name: string): void {
    if (!this.dir) return;
    const file = this.fileName(formRef, space, name);
    if (!this.listing().delete(file)) return;
    const removal = rm(path.join(this.dir, file), { force: true })
      .catch(() => undefined)
      .finally(() => {
        if (this.removals.get(file) === removal) this.removals.delete(file);
      });
    this.removals.set(file, removal);
  }

  /** The entries present, listed once per process: refreshes check thousands of names. */
  private listing(): Set<string> {
    if (!this.known) {
      try {
        this.known = new Set(readdirSync(this.dir!).filter((f) => f.endsWith('.json')));
      } catch {
        this.known = new Set();
      }
    }
    return this.known;
  }

  private fileName(formRef: FormRef, space: string, name: string): string {
    const id = JSON.stringify([formRef.apiVersion, formRef.kind, formRef.definitionVersion, formRef.schemaDigest, space, name]);
    return `${createHash('sha256').update(id).digest('hex')}.json`;
  }
}
