// Imported by transport.ts together with undici, on the first Host request, never at start-up
// (node:v8 is not loaded by launches that never talk to a Host).
//
// undici parses HTTP/1.1 with llhttp compiled to WebAssembly, which V8 compiles at the first
// connection of a process: at once with its baseline compiler (Liftoff), then again, on
// background threads, with its optimizing one (TurboFan). That second compile of one very large
// state machine costs ~100–150 ms of CPU in every launch that talks to a Host (the process waits
// for it before it exits, and no JavaScript profile shows it) and raises the launch's peak RSS
// by ~35 MB (a standalone undici client: VmHWM 90 MB against 55 MB with Liftoff only, Node 20).
// The optimized parser would only pay off over megabytes of headers; ours are a few kilobytes of
// headers and JSON. So the baseline code is kept: `--liftoff-only`, before llhttp is compiled.
import { setFlagsFromString } from 'node:v8';

/**
 * Makes V8 compile WebAssembly from now on with its baseline compiler only. Not while
 * `install` trains the provider's V8 code cache (TAKOFORM_CODE_CACHE_TRAINING): a V8 flag
 * changed at run time is part of the cache's flag hash, and every launch would then reject the
 * cache.
 */
export function useBaselineWasmCompiler(): void {
  if (process.env.TAKOFORM_CODE_CACHE_TRAINING === '1') return;
  setFlagsFromString('--liftoff-only');
}
