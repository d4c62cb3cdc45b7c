#!/usr/bin/env node
// Loader of the provider bundle (copied next to provider-main.cjs by the build and by
// `install`). Core starts the provider 3-5 times per command, and compiling the bundle costs
// ~60 ms each time; with the V8 code cache written at install time (provider-main.cache, made
// by this same Node) it costs a few. A cache from another Node version (or other V8 flags) is
// rejected by V8 and the bundle is simply compiled as usual; a missing cache is the same.
//
// TAKOFORM_CODE_CACHE_TRAINING=1 is how `install` makes that cache: the loader runs the real
// start-up (catalog, certificate, gRPC server, bind) and, at the handshake line, writes the
// cache and exits instead of printing it. A cache taken after execution holds every function
// the start-up compiled, not just the top level: about 20% less start-up CPU than a cache of the
// freshly compiled script.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const { createRequire } = require('module');

const main = path.join(__dirname, 'provider-main.cjs');
const cacheFile = path.join(__dirname, 'provider-main.cache');
const training = process.env.TAKOFORM_CODE_CACHE_TRAINING === '1';
// The bundle is ASCII (esbuild escapes everything else), and decoding 1.6 MB as latin1 takes
// ~0.6 ms where UTF-8 takes ~5 ms; the check keeps any other bundle correct.
const bytes = fs.readFileSync(main);
const source = (require('buffer').isAscii(bytes) ? bytes.latin1Slice() : bytes.toString('utf8')).replace(/^#!.*\n/, '');
let cachedData;
if (!training) {
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
}
const wrapper = '(function (exports, require, module, __filename, __dirname) {' + source + '\n})';
const script = new vm.Script(wrapper, { filename: main, cachedData, importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER });
if (training) {
  // The first stdout write of the provider is its handshake line: start-up is complete.
  process.stdout.write = () => {
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, script.createCachedData());
    fs.renameSync(tmp, cacheFile);
    process.exit(0);
  };
}
const mod = { exports: {} };
script.runInThisContext()(mod.exports, createRequire(main), mod, main, __dirname);
