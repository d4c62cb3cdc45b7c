#!/usr/bin/env node
// `npm run soak`: the reliability scenarios (TypeScript under test/reliability), bundled and run
// from the repository root (the scenarios find dist/, .tools/ and ../shared relative to it).
// Arguments are passed through, e.g. `npm run soak -- --seed 42 --cycles 200 --kills 50`.
import { runBundled } from './run-bundled.mjs';

await runBundled('test/reliability/soak-main.ts', 'dist/soak/soak-main.mjs');
