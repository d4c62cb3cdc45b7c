// Imported by transport.ts with undici, never at start-up.
import { setFlagsFromString } from 'node:v8';

/**
 * undici parses HTTP/1.1 with llhttp compiled to WebAssembly. V8 compiles it twice: at once
 * with its baseline compiler (Liftoff), then again, on background threads, with its optimizing
 * one (TurboFan) — ~100 ms of CPU after the first request, in every process that talks to a
 * Host (they stop the process from exiting until done). The optimized parser would only pay
 * off over megabytes of headers; our responses are small JSON documents. So the baseline code
 * is kept: `--liftoff-only` before undici compiles llhttp (on its first connection). Imported
 * with undici, on the first request (node:v8 is not loaded by launches that never need it).
 *
 * Not while `install` trains the provider's V8 code cache (TAKOFORM_CODE_CACHE_TRAINING): a
 * V8 flag changed at run time is part of the cache's flag hash, and every launch would then
 * reject the cache.
 */
export function baselineWasmOnly(): void {
  if (process.env.TAKOFORM_CODE_CACHE_TRAINING === '1') return;
  setFlagsFromString('--liftoff-only');
}
