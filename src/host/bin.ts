// Executable entry point of takoform-host (the file that gets bundled). Kept apart from cli.ts so
// importing the CLI never starts it, without needing import.meta to detect the entry module.
import { main } from './cli.js';

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`takoform-host: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
