// The values of `--flag VALUE` / `--flag=VALUE` on the provider's commands for people (install,
// docs, cdktf, catalog lock, release). Whether a command line is well formed at all is checked
// once, before any command runs (main.ts, checkCommandLine).

/** Every value given for `name`, in order (a flag may repeat, e.g. `--package`). */
export function flagValues(args: readonly string[], name: string): string[] {
  const found: string[] = [];
  args.forEach((a, i) => {
    if (a === name && args[i + 1] !== undefined) found.push(args[i + 1]!);
    else if (a.startsWith(`${name}=`)) found.push(a.slice(name.length + 1));
  });
  return found;
}

/** The first value given for `name`, if any. */
export function flagValue(args: readonly string[], name: string): string | undefined {
  return flagValues(args, name)[0];
}
