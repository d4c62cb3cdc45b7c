// Prepare answers kept from a plan for the apply-time re-plan of the same change, so that a
// create costs two Host requests (prepare at plan, apply) instead of three.
//
// Why this is needed: core plans every change twice — once in the plan walk, and again in the
// apply walk, in another provider process, with the now-known configuration ("re-plan"). The
// re-plan must show what the first plan showed, and apply must send the binding the Host
// minted for exactly that. Before, the re-plan prepared again. OpenTofu (and Terraform before
// 1.16) does not hand the first plan's planned private data to the re-plan, so a binding can
// only reach it through this working directory; Terraform ≥ 1.16 hands it over
// (PlanResourceChange.planned_private), and then the planned private data is the source, which
// also serves a saved plan applied on another machine.
//
// What makes reuse safe:
// * an entry is found only under a key that binds everything the prepare depended on: the
//   exact FormRef, space, name, the desired spec (canonical JSON) and the prior incarnation
//   (uid and generation, or "create"); another configuration, a refreshed generation or
//   another object never matches;
// * entries live in the data directory of their workspace and backend (as the create
//   journal) and carry the Host endpoint, checked again when read;
// * every entry expires (LIFETIME_MS); an expired or unreadable one is ignored and removed;
// * the Host stays the arbiter: it spends a binding only for the spec, address, tenant and
//   incarnation it was minted for. If it refuses one at apply (expired on its side, another
//   tenant, changed materialization), apply prepares afresh and refuses unless the Host
//   would store exactly what the plan showed (apply.ts), and this directory's entries are
//   dropped so the next plan prepares again.
// Nothing here is a credential: digests, canonical specs, names, an endpoint origin.
//
// Cost: one file per plan process, written when core shuts the process down normally (a plan
// of a thousand resources writes one file, not a thousand), read once by the next process.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { canonicalJson } from '../../../common/digest.js';
import { isJsonObject } from '../../../common/json-value.js';
import type { FormRef, JsonObject, PrepareResult } from '../../../host-client/index.js';
import { backendConfiguration, currentWorkspace } from '../create-journal.js';

/** How long a plan's prepare answer may stand in for a fresh one at the apply-time re-plan. */
export const LIFETIME_MS = 10 * 60 * 1000;
const FORMAT = 'takoform-prepared-bindings/1';

/** A prepare answer as kept: the key it answers and when it stops standing in. */
export interface PreparedEntry extends PrepareResult {
  readonly key: string;
  readonly expiresAt: number;
}

/** What a prepare was for: what the Host's answer depended on, on our side. */
export interface PrepareSubject {
  readonly formRef: FormRef;
  readonly space: string;
  readonly name: string;
  readonly spec: JsonObject;
  /** The incarnation an update prepares against; undefined for a create. */
  readonly prior: { readonly uid: string; readonly generation: string } | undefined;
}

export function prepareKey(endpoint: string, s: PrepareSubject): string {
  const { apiVersion, kind, definitionVersion, schemaDigest } = s.formRef;
  const subject = [endpoint, apiVersion, kind, definitionVersion, schemaDigest, s.space, s.name, s.prior?.uid ?? '', s.prior?.generation ?? 'create', s.spec];
  return createHash('sha256').update(canonicalJson(subject)).digest('hex');
}

export class PreparedBindings {
  /** Answers this process got from the Host, by key: written at a normal shutdown. */
  private readonly minted = new Map<string, PreparedEntry>();
  /** Keys this process applied: their entries are spent and not written again. */
  private readonly spent = new Set<string>();
  /** Entries earlier processes of this scope left, read on first use. */
  private loaded: Map<string, PreparedEntry> | undefined;
  private readonly loadedFiles: string[] = [];
  private refused = false;

  private constructor(
    /** Undefined: kept in this process only (no data directory, or turned off). */
    private readonly dir: string | undefined,
    readonly endpoint: string,
    private readonly now: () => number = Date.now,
  ) {}

  static disabled(): PreparedBindings {
    return new PreparedBindings(undefined, '');
  }

  /** For tests: entries kept in memory only, with a clock of their own. */
  static inMemory(endpoint: string, now: () => number = Date.now): PreparedBindings {
    return new PreparedBindings(undefined, endpoint, now);
  }

  /** The entries of this data directory (TF_DATA_DIR, default `.terraform`), workspace and backend. */
  static inDataDir(endpoint: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): PreparedBindings {
    if (env.TAKOFORM_PREPARE_REUSE === 'off') return new PreparedBindings(undefined, endpoint);
    const dataDir = path.resolve(cwd, env.TF_DATA_DIR || '.terraform');
    const scope = createHash('sha256')
      .update(JSON.stringify([currentWorkspace(dataDir, env), backendConfiguration(dataDir)]))
      .digest('hex')
      .slice(0, 24);
    return new PreparedBindings(path.join(dataDir, 'takoform', 'prepared', scope), endpoint);
  }

  /** A fresh Host answer for `key`, kept for the re-plan. */
  remember(key: string, prepared: PrepareResult): PreparedEntry {
    const entry: PreparedEntry = {
      key,
      spec: prepared.spec,
      prepareDigest: prepared.prepareDigest,
      specDigest: prepared.specDigest,
      expiresAt: this.now() + LIFETIME_MS,
    };
    this.minted.set(key, entry);
    return entry;
  }

  /**
   * A prepare answer that may stand in for a fresh one: from the planned private data core
   * handed over (Terraform ≥ 1.16), else from an earlier process of this directory. Only for
   * exactly `key`, and only before it expires.
   */
  find(key: string, handedOver?: PreparedEntry): PreparedEntry | undefined {
    const usable = (e: PreparedEntry | undefined) => (e !== undefined && e.key === key && e.expiresAt > this.now() ? e : undefined);
    return usable(handedOver) ?? usable(this.minted.get(key)) ?? usable(this.load().get(key));
  }

  /** Apply sent the binding of `key` (accepted or not): it is not kept for another run. */
  spend(key: string): void {
    this.spent.add(key);
  }

  /** The Host refused a kept binding: nothing kept here is trusted again. */
  refusedByHost(): void {
    this.refused = true;
    this.loaded = new Map();
    this.minted.clear();
    this.removeLoaded();
  }

  /**
   * Core shut the process down normally: keep this process's unspent answers for the next
   * one (the apply walk after a plan walk). Entries read from earlier processes are removed
   * once this process applied changes: that plan has been applied.
   */
  closeNormally(): void {
    if (!this.dir) return;
    if (this.spent.size > 0 || this.refused) {
      this.load(); // also when every re-plan was handed its answer by core
      this.removeLoaded();
    }
    const keep = [...this.minted.values()].filter((e) => !this.spent.has(e.key));
    if (keep.length === 0) return;
    mkdirSync(this.dir, { recursive: true });
    const file = path.join(this.dir, `${process.pid}-${this.now().toString(36)}.json`);
    writeFileSync(file, JSON.stringify({ format: FORMAT, endpoint: this.endpoint, entries: keep }));
  }

  private removeLoaded(): void {
    for (const f of this.loadedFiles.splice(0)) rmSync(f, { force: true });
  }

  private load(): Map<string, PreparedEntry> {
    if (this.loaded) return this.loaded;
    this.loaded = new Map();
    if (!this.dir) return this.loaded;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return this.loaded; // nothing kept yet
    }
    for (const name of names) {
      const file = path.join(this.dir, name);
      const entries = this.readFile(file);
      if (entries === undefined || entries.length === 0) {
        rmSync(file, { force: true }); // unreadable, foreign or wholly expired: never trusted
        continue;
      }
      this.loadedFiles.push(file);
      for (const e of entries) this.loaded.set(e.key, e);
    }
    return this.loaded;
  }

  private readFile(file: string): PreparedEntry[] | undefined {
    try {
      const doc: unknown = JSON.parse(readFileSync(file, 'utf8'));
      if (!isJsonObject(doc) || doc.format !== FORMAT || doc.endpoint !== this.endpoint || !Array.isArray(doc.entries)) return undefined;
      return doc.entries.map(readEntry).filter((e): e is PreparedEntry => e !== undefined && e.expiresAt > this.now());
    } catch {
      return undefined;
    }
  }
}

/** An entry as stored (in a file or in planned private data), or undefined if it is not one. */
export function readEntry(v: unknown): PreparedEntry | undefined {
  if (!isJsonObject(v)) return undefined;
  const { key, spec, prepareDigest, specDigest, expiresAt } = v;
  if (typeof key !== 'string' || typeof prepareDigest !== 'string' || typeof specDigest !== 'string' || typeof expiresAt !== 'number' || !isJsonObject(spec))
    return undefined;
  return { key, spec, prepareDigest, specDigest, expiresAt };
}
