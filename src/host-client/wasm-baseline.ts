// undici parses HTTP/1.1 responses with llhttp compiled to WebAssembly, compiled by V8 at the
// first connection of a process. By default V8 compiles it with Liftoff (its baseline wasm
// compiler) and then tiers the hot parser function up with TurboFan on a background thread;
// that function is one very large state machine, and its TurboFan compile is what makes a
// provider launch that talks to the Host peak ~35 MB higher than it ever runs (measured with a
// standalone undici client: VmHWM 90 MB against 55 MB with Liftoff only, and ~50–100 ms more
// CPU, on Node 20). The responses we parse are a few kilobytes of headers and JSON, where the
// faster TurboFan code saves nothing measurable, so Liftoff alone is the better trade.
//
// The flag is set when undici is first loaded, not at process start: the V8 code cache of the
// provider bundle is made at install, before any Host request (scripts/provider-loader.cjs), and
// V8 rejects a cache made under other flags. Nothing else in the provider compiles WebAssembly.
import { setFlagsFromString } from 'node:v8';

let set = false;

/** Makes V8 compile WebAssembly from now on with its baseline compiler only; once per process. */
export function useBaselineWasmCompiler(): void {
  if (set) return;
  set = true;
  setFlagsFromString('--liftoff-only');
}
