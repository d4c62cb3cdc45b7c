// A local state file as core writes it, for the suites that read or rewrite one (older state
// versions, upgrades): only the members they use.
import { readFileSync, writeFileSync } from 'node:fs';

export interface StateInstance {
  schema_version: number;
  attributes: Record<string, unknown>;
}
export interface StateFile {
  serial: number;
  resources: { type: string; name: string; instances: StateInstance[] }[];
}

export const readStateFile = (file: string): StateFile => JSON.parse(readFileSync(file, 'utf8')) as StateFile;

/** Every instance by address (`type.name`). */
export function instancesOf(file: string): Record<string, StateInstance> {
  return Object.fromEntries(readStateFile(file).resources.flatMap((r) => r.instances.map((i) => [`${r.type}.${r.name}`, i] as const)));
}

/** Rewrites the instances of the resources `select` picks with `rewrite`, as a new serial. */
export function rewriteInstances(file: string, select: (type: string) => boolean, rewrite: (instance: StateInstance) => void): void {
  const state = readStateFile(file);
  for (const r of state.resources) if (select(r.type)) r.instances.forEach(rewrite);
  state.serial += 1;
  writeFileSync(file, JSON.stringify(state, null, 2));
}
