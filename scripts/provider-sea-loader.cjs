// Entry of the single executable (scripts/build-sea.mjs): runs the provider bundle, carried as
// an asset of the executable, with the V8 code cache carried beside it. That cache comes from
// the same training run `install` does for the wrapper (scripts/provider-loader.cjs): made by
// the Node that is embedded, after the real start-up and the warm-up of what launches run
// after the handshake (src/plugin/code-cache-warm-up.ts). Node's own `useCodeCache` holds only
// the functions V8 compiles eagerly, so every launch compiled the rest again. A cache V8
// rejects (it cannot be: same Node, same bundle) would only make the bundle compile as usual.
'use strict';
const { getAsset } = require('node:sea');
const path = require('node:path');
const vm = require('node:vm');

const source = Buffer.from(getAsset('provider-main.cjs')).latin1Slice(); // the bundle is ASCII (build-sea.mjs checks)
let cachedData;
try {
  cachedData = Buffer.from(getAsset('provider-main.cache'));
} catch {
  cachedData = undefined;
}
// As Node runs a single executable's main script: __filename is the executable itself.
const filename = process.execPath;
const wrapper = '(function (exports, require, module, __filename, __dirname) {' + source.replace(/^#!.*\n/, '') + '\n})';
const script = new vm.Script(wrapper, { filename, cachedData });
if (process.env.TAKOFORM_SEA_CACHE_CHECK === '1')
  process.stderr.write(`code cache ${cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'accepted'}\n`);
const mod = { exports: {} };
script.runInThisContext()(mod.exports, require, mod, filename, path.dirname(filename));
