// The create journal: an entry is resumable only by a later process of the same scope
// (workspace, backend, endpoint) for the same exact address; never by the process that wrote
// it; answered entries go at a normal shutdown; corrupt or foreign entries are ignored with a
// reason and removed; nothing is written when the journal is off. A process appends to a log
// of its own; a later process reads a log only once its writer has ended.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newAttemptId } from '../../../src/host-client/index.js';
import { CreateJournal, type CreateIntent } from '../../../src/plugin/resource/create-journal.js';
import { journalFiles } from '../../support/create-journal-files.js';

const ref = { apiVersion: 'resources.publisher.example', kind: 'RangeSequence', definitionVersion: '0.1.0', schemaDigest: `sha256:${'c'.repeat(64)}` };
const ENDPOINT = 'http://127.0.0.1:8787';
const intent = (name = 'a'): CreateIntent => ({
  formRef: ref,
  space: 'demo',
  name,
  specDigest: `sha256:${'1'.repeat(64)}`,
  review: { prepareDigest: `sha256:${'2'.repeat(64)}`, specDigest: `sha256:${'1'.repeat(64)}` },
  attempt: newAttemptId(),
});
const workDir = () => mkdtempSync(path.join(tmpdir(), 'journal-'));
const files = journalFiles;
/** A pid no process has now: the pid of a child that has exited and been reaped. */
const endedPid = () => spawnSync(process.execPath, ['-e', '']).pid;
/**
 * What a kill of the process that wrote `cwd`'s logs leaves: the same logs, of a process that
 * has ended (this test process writes them, and a running process's log is never read).
 */
function killWriters(cwd: string): void {
  for (const log of files(cwd).filter((f) => f.endsWith('.log')))
    renameSync(log, path.join(path.dirname(log), path.basename(log).replace(/^\d+-/, `${endedPid()}-`)));
}

describe('CreateJournal', () => {
  it('lives in the CLI data directory (TF_DATA_DIR respected); a later process finds the entry by exact address', async () => {
    const cwd = workDir();
    const journal = CreateJournal.inDataDir(ENDPOINT, { TF_DATA_DIR: 'data' }, cwd);
    const written = await journal.record(intent());
    expect(files(cwd, 'data')).toHaveLength(1);
    expect(written).toMatchObject({ workspace: 'default', endpoint: ENDPOINT, attempt: written.attempt });
    journal.closeNormally(); // its answer never came: the entry stays
    const later = () => CreateJournal.inDataDir(ENDPOINT, { TF_DATA_DIR: 'data' }, cwd);
    expect(later().claimPending(ref, 'demo', 'b').entries).toEqual([]);
    expect(later().claimPending(ref, 'other', 'a').entries).toEqual([]);
    expect(later().claimPending({ ...ref, definitionVersion: '0.2.0' }, 'demo', 'a').entries).toEqual([]);
    expect(later().claimPending(ref, 'demo', 'a').entries).toEqual([written]);
  });

  it('never lets the writing process, a second claimant, another workspace, backend or endpoint resume an entry', async () => {
    const cwd = workDir();
    const journal = CreateJournal.inDataDir(ENDPOINT, {}, cwd);
    await journal.record(intent());
    // The same process: another block with the same name must not share this attempt.
    expect(journal.claimPending(ref, 'demo', 'a').entries).toEqual([]);
    // Nor another process while this one runs (a second configuration of the provider).
    expect(CreateJournal.inDataDir(ENDPOINT, {}, cwd).claimPending(ref, 'demo', 'a').entries).toEqual([]);
    killWriters(cwd);
    // Another workspace (selected, or through TF_WORKSPACE), another Host: nothing.
    mkdirSync(path.join(cwd, '.terraform'), { recursive: true });
    writeFileSync(path.join(cwd, '.terraform/environment'), 'b');
    expect(CreateJournal.inDataDir(ENDPOINT, {}, cwd).claimPending(ref, 'demo', 'a').entries).toEqual([]);
    writeFileSync(path.join(cwd, '.terraform/environment'), 'default');
    expect(CreateJournal.inDataDir(ENDPOINT, { TF_WORKSPACE: 'b' }, cwd).claimPending(ref, 'demo', 'a').entries).toEqual([]);
    expect(CreateJournal.inDataDir('http://127.0.0.1:9999', {}, cwd).claimPending(ref, 'demo', 'a').entries).toEqual([]);
    // Another backend configuration of this data directory is another state.
    writeFileSync(path.join(cwd, '.terraform/terraform.tfstate'), JSON.stringify({ backend: { type: 'pg', hash: 1, config: { conn_str: 'x' } } }));
    expect(CreateJournal.inDataDir(ENDPOINT, {}, cwd).claimPending(ref, 'demo', 'a').entries).toEqual([]);
    writeFileSync(path.join(cwd, '.terraform/terraform.tfstate'), '{}');
    // The same scope in a later process: found once; a second claimant in that process gets nothing.
    const later = CreateJournal.inDataDir(ENDPOINT, {}, cwd);
    expect(later.claimPending(ref, 'demo', 'a').entries).toHaveLength(1);
    expect(later.claimPending(ref, 'demo', 'a').entries).toEqual([]);
  });

  it('removes answered entries at a normal shutdown, keeps unanswered ones, and forgets by name', async () => {
    const cwd = workDir();
    const journal = CreateJournal.inDataDir(ENDPOINT, {}, cwd);
    const answered = await journal.record(intent('answered'));
    await journal.record(intent('in-flight'));
    journal.answeredBy(answered);
    journal.closeNormally();
    const left = files(cwd);
    expect(left).toHaveLength(1);
    expect(JSON.parse(readFileSync(left[0]!, 'utf8'))).toMatchObject({ name: 'in-flight' });
    // A refresh that sees the resource in state (or finds it gone) forgets every entry of the name.
    const later = CreateJournal.inDataDir(ENDPOINT, {}, cwd);
    later.forgetName(ref, 'demo', 'other');
    expect(files(cwd)).toHaveLength(1);
    later.forgetName(ref, 'demo', 'in-flight');
    expect(files(cwd)).toEqual([]);
  });

  it('ignores and removes a torn, foreign or mismatched entry, saying why', async () => {
    const cwd = workDir();
    const journal = CreateJournal.inDataDir(ENDPOINT, {}, cwd);
    const torn = await journal.record(intent('torn'));
    const copied = await journal.record(intent('copied'));
    journal.closeNormally(); // unanswered: each is an entry file of its own now
    const [tornFile] = files(cwd).filter((f) => f.includes(torn.attempt));
    writeFileSync(tornFile!, readFileSync(tornFile!, 'utf8').slice(0, 40));
    // An entry copied in from another workspace's journal under this scope's file name.
    const [copiedFile] = files(cwd).filter((f) => f.includes(copied.attempt));
    writeFileSync(copiedFile!, JSON.stringify({ ...JSON.parse(readFileSync(copiedFile!, 'utf8')), workspace: 'prod' }));
    const later = CreateJournal.inDataDir(ENDPOINT, {}, cwd);
    const t = later.claimPending(ref, 'demo', 'torn');
    expect(t.entries).toEqual([]);
    expect(t.ignored[0]!.reason).toMatch(/cannot be read/);
    const c = later.claimPending(ref, 'demo', 'copied');
    expect(c.entries).toEqual([]);
    expect(c.ignored[0]!.reason).toMatch(/another workspace or state/);
    expect(files(cwd)).toEqual([]);
  });

  it("appends a process's entries to one log, and a later process turns a log left by a kill into entries, dropping a torn line", async () => {
    const cwd = workDir();
    const killed = CreateJournal.inDataDir(ENDPOINT, {}, cwd);
    const kept = await killed.record(intent('kept'));
    const answered = await killed.record(intent('answered'));
    killed.forget(await killed.record(intent('refused'))); // refused: nothing to resume, even after the kill
    const elsewhere = await CreateJournal.inDataDir('http://127.0.0.1:9999', {}, cwd).record(intent('kept'));
    killed.answeredBy(answered); // answered, but the process dies before its shutdown
    killWriters(cwd);
    const logs = files(cwd);
    expect(logs.map((f) => path.basename(f))).toEqual([expect.stringMatching(/^\d+-[0-9a-f]{32}\.log$/), expect.stringMatching(/^\d+-[0-9a-f]{32}\.log$/)]);
    const [log] = logs.filter((f) => readFileSync(f, 'utf8').includes(kept.attempt));
    expect(readFileSync(log!, 'utf8').split('\n')).toHaveLength(5); // three entries, the refused one marked removed, and the end
    writeFileSync(log!, readFileSync(log!, 'utf8') + '{"format":"takoform-pending-cre'); // one more, torn by the kill
    // No shutdown: the next process lists the directory and finds both as entries.
    const later = CreateJournal.inDataDir(ENDPOINT, {}, cwd);
    expect(later.claimPending(ref, 'demo', 'kept').entries).toEqual([kept]);
    expect(later.claimPending(ref, 'demo', 'refused').entries).toEqual([]);
    expect(files(cwd).filter((f) => f.endsWith('.log'))).toEqual([]);
    // The answered one is an entry until a refresh sees it in state; the other Host's stays its own.
    later.forgetName(ref, 'demo', 'answered');
    expect(files(cwd)).toHaveLength(2);
    expect(CreateJournal.inDataDir('http://127.0.0.1:9999', {}, cwd).claimPending(ref, 'demo', 'kept').entries).toEqual([elsewhere]);
  });

  it('keeps scopes apart on disk: a copy of one workspace directory into another is still refused', async () => {
    const cwd = workDir();
    const first = CreateJournal.inDataDir(ENDPOINT, {}, cwd);
    await first.record(intent());
    first.closeNormally();
    const root = path.join(cwd, '.terraform/takoform/pending-creates');
    const [scopeDir] = readdirSync(root);
    // Find the directory the "b" workspace uses by recording there, then copy default's entry in.
    await CreateJournal.inDataDir(ENDPOINT, { TF_WORKSPACE: 'b' }, cwd).record(intent('marker'));
    const bDir = readdirSync(root).find((d) => d !== scopeDir)!;
    cpSync(path.join(root, scopeDir!), path.join(root, bDir), { recursive: true });
    const b = CreateJournal.inDataDir(ENDPOINT, { TF_WORKSPACE: 'b' }, cwd).claimPending(ref, 'demo', 'a');
    expect(b.entries).toEqual([]);
    expect(b.ignored.map((i) => i.reason)).toEqual([expect.stringMatching(/another workspace or state/)]);
  });

  it('records nothing when turned off', async () => {
    const cwd = workDir();
    const journal = CreateJournal.inDataDir(ENDPOINT, { TAKOFORM_CREATE_JOURNAL: 'off' }, cwd);
    await journal.record(intent());
    expect(journal.enabled).toBe(false);
    expect(journal.claimPending(ref, 'demo', 'a').entries).toEqual([]);
    expect(readdirSync(cwd)).toEqual([]);
  });
});
