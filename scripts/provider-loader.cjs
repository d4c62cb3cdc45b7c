#!/usr/bin/env node
// Loader of the provider bundle (copied next to provider-main.cjs by the build and by
// `install`). Core starts the provider 3-5 times per command, and compiling the 1 MB bundle
// costs ~60 ms each time; with the V8 code cache written at install time (provider-main.cache,
// made by this same Node) it costs a few. A cache from another Node version is rejected by V8
// and the bundle is simply compiled as usual.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const { createRequire } = require('module');

const main = path.join(__dirname, 'provider-main.cjs');
const source = fs.readFileSync(main, 'utf8').replace(/^#!.*\n/, '');
let cachedData;
try {
  cachedData = fs.readFileSync(path.join(__dirname, 'provider-main.cache'));
} catch {
  cachedData = undefined;
}
const wrapper = '(function (exports, require, module, __filename, __dirname) {' + source + '\n})';
const script = new vm.Script(wrapper, { filename: main, cachedData, importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER });
const mod = { exports: {} };
script.runInThisContext()(mod.exports, createRequire(main), mod, main, __dirname);
