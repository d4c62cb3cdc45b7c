// The create journal: entries found by exact FormRef + space + name, written whole (no
// temporary files left), forgotten by name, and nowhere when turned off.
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreateJournal, type PendingCreate } from '../../../src/plugin/resource/create-journal.js';

const ref = { apiVersion: 'resources.publisher.example', kind: 'RangeSequence', definitionVersion: '0.1.0', schemaDigest: `sha256:${'c'.repeat(64)}` };
const entry: PendingCreate = { formRef: ref, space: 'demo', name: 'a', specDigest: `sha256:${'1'.repeat(64)}`, review: { prepareDigest: `sha256:${'2'.repeat(64)}`, specDigest: `sha256:${'1'.repeat(64)}` } };

describe('CreateJournal', () => {
  it('lives in the CLI data directory (TF_DATA_DIR respected) and finds entries by exact address', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'journal-'));
    const journal = CreateJournal.inDataDir({ TF_DATA_DIR: 'data' }, cwd);
    await journal.record(entry);
    expect(readdirSync(path.join(cwd, 'data/takoform/pending-creates'))).toHaveLength(1);
    // A fresh process (new instance) sees it; another name, space or Form version does not.
    const again = CreateJournal.inDataDir({ TF_DATA_DIR: 'data' }, cwd);
    expect(again.find(ref, 'demo', 'a')).toEqual(entry);
    expect(again.find(ref, 'demo', 'b')).toBeUndefined();
    expect(again.find(ref, 'other', 'a')).toBeUndefined();
    expect(again.find({ ...ref, definitionVersion: '0.2.0' }, 'demo', 'a')).toBeUndefined();
  });

  it('forgets by name, and a new entry for the name is never undone by an earlier removal', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'journal-'));
    const journal = CreateJournal.inDataDir({}, cwd);
    await journal.record(entry);
    journal.forget(ref, 'demo', 'b'); // another name: untouched
    expect(journal.find(ref, 'demo', 'a')).toEqual(entry);
    journal.forget(ref, 'demo', 'a');
    expect(journal.find(ref, 'demo', 'a')).toBeUndefined();
    // Recorded right after the (asynchronous) removal: the new entry survives it.
    const second = { ...entry, specDigest: `sha256:${'3'.repeat(64)}` };
    await journal.record(second);
    expect(CreateJournal.inDataDir({}, cwd).find(ref, 'demo', 'a')).toEqual(second);
    journal.forget(ref, 'demo', 'a');
    await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(path.join(cwd, '.terraform/takoform/pending-creates'))).toEqual([]);
  });

  it('treats a torn entry (a kill in the middle of a write) as absent', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'journal-'));
    const journal = CreateJournal.inDataDir({}, cwd);
    await journal.record(entry);
    const [file] = readdirSync(path.join(cwd, '.terraform/takoform/pending-creates'));
    writeFileSync(path.join(cwd, '.terraform/takoform/pending-creates', file!), JSON.stringify(entry).slice(0, 40));
    expect(CreateJournal.inDataDir({}, cwd).find(ref, 'demo', 'a')).toBeUndefined();
  });

  it('records nothing when turned off', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'journal-'));
    const journal = CreateJournal.inDataDir({ TAKOFORM_CREATE_JOURNAL: 'off' }, cwd);
    await journal.record(entry);
    expect(journal.enabled).toBe(false);
    expect(journal.find(ref, 'demo', 'a')).toBeUndefined();
    expect(readdirSync(cwd)).toEqual([]);
  });
});
