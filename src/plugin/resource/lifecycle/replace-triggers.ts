// Which resource types the configuration names in a `lifecycle { replace_triggered_by = [...] }`.
// Core keeps lifecycle blocks to itself: a provider planning a resource cannot see whether core
// will replace it because something else changes. The plan-time warning for a resource that pins
// a target this run replaces (plan.ts) would otherwise also show when the user has already
// written the recipe it recommends; so the provider reads the configuration's files, as the
// catalog hints do, and stays quiet when a trigger names the target's type. Best effort: a
// missed trigger only costs a warning, and the apply-time refusal still names the dependent.
import { readFileSync } from 'node:fs';
import { configurationFiles } from '../../catalog/catalog-hints.js';

/** Types (`takoform_...`) referenced inside any replace_triggered_by list of the configuration. */
export function typesInReplaceTriggers(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): Set<string> {
  const types = new Set<string>();
  for (const file of configurationFiles(cwd, env)) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const type of triggerTypesInText(text)) types.add(type);
  }
  return types;
}

/** The same, for one file's text (HCL or JSON syntax: both spell the list with brackets). */
export function triggerTypesInText(text: string): string[] {
  const found: string[] = [];
  for (const list of text.matchAll(/"?replace_triggered_by"?\s*[=:]\s*\[([^\]]*)\]/g))
    for (const ref of list[1]!.matchAll(/\b(takoform_[a-z0-9_]+)\.[A-Za-z_][A-Za-z0-9_-]*/g)) found.push(ref[1]!);
  return found;
}
