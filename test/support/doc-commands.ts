// The commands that README.md and docs/ tell a user to run: every line of a sh/bash/console
// code block, and inline code that starts with one of our executables or a project script.
// Each is split into simple commands (at &&, ||, ;, |), continuation lines joined, comments
// and leading VAR=value assignments dropped.
import { readdirSync } from 'node:fs';
import path from 'node:path';

export interface DocCommand {
  readonly file: string;
  readonly line: number;
  /** The simple command as written (after VAR=value prefixes). */
  readonly text: string;
  readonly argv: readonly string[];
}

const INLINE_START =
  /^(terraform-provider-takoform(?= |$)|takoform-host serve|tofu [a-z]|terraform [a-z]|npm (run|test|install|pack)|bash scripts\/|node dist\/)/;

export function markdownFiles(root: string): string[] {
  const out = [path.join(root, 'README.md')];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else if (e.name.endsWith('.md')) out.push(path.join(dir, e.name));
    }
  };
  walk(path.join(root, 'docs'));
  return out.sort();
}

export function extractCommands(file: string, text: string): DocCommand[] {
  const commands: DocCommand[] = [];
  const lines = text.split('\n');
  let fence: string | undefined;
  let pending = '';
  let pendingLine = 0;
  lines.forEach((raw, i) => {
    const m = /^\s*```\s*([a-z]*)/.exec(raw);
    if (m) {
      fence = fence === undefined ? (m[1] ?? '') : undefined;
      return;
    }
    if (fence !== undefined) {
      if (!['sh', 'bash', 'shell', 'console'].includes(fence)) return;
      const body = stripComment(raw.replace(/^\s*\$ /, ''));
      if (pending === '') pendingLine = i + 1;
      if (body.trimEnd().endsWith('\\')) {
        pending += body.trimEnd().slice(0, -1) + ' ';
        return;
      }
      const full = (pending + body).trim();
      pending = '';
      if (full !== '')
        commands.push(
          ...split(full)
            .map((c) => toCommand(file, pendingLine, c))
            .filter((c) => c.argv.length > 0),
        );
      return;
    }
    for (const span of raw.matchAll(/`([^`]+)`/g)) {
      const code = span[1]!.replace(/^[A-Z_]+=\S*\s+/g, '').trim();
      if (INLINE_START.test(code))
        commands.push(
          ...split(span[1]!)
            .map((c) => toCommand(file, i + 1, c))
            .filter((c) => c.argv.length > 0),
        );
    }
  });
  return commands;
}

function stripComment(line: string): string {
  // A `#` that starts a word begins a comment (none of our commands has one inside quotes).
  const m = /(^|\s)#/.exec(line);
  return m ? line.slice(0, m.index) : line;
}

function split(line: string): string[] {
  return line.split(/\s*(?:&&|\|\||;|\||&(?=\s|$))\s*/).filter((s) => s.trim() !== '');
}

function toCommand(file: string, line: number, text: string): DocCommand {
  const words = text.trim().split(/\s+/);
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift();
  return { file, line, text: words.join(' '), argv: words };
}

/** The flags a command line names (`--out`, `-detailed-exitcode`), without values. */
export function flagsOf(argv: readonly string[]): string[] {
  return argv.filter((w) => /^-{1,2}[a-z][a-z0-9-]*(=.*)?$/.test(w.replace(/[[\]]/g, ''))).map((w) => w.replace(/[[\]]/g, '').split('=')[0]!);
}
