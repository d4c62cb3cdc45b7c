// An esbuild plugin shared by the provider's build (scripts/build.mjs) and the benchmark's Node
// floor (scripts/build-node-floor.mjs). protobufjs/minimal requires `long` when loaded, and
// `long` instantiates WebAssembly (~2 ms of every launch). The generated protocol runs without
// it (its int64 fields are small: see scripts/proto-static.mjs), so bundles get an empty stand-in.
export const withoutLong = {
  name: 'without-long',
  setup(b) {
    b.onResolve({ filter: /^long$/ }, () => ({ path: 'long', namespace: 'without-long' }));
    b.onLoad({ filter: /.*/, namespace: 'without-long' }, () => ({ contents: 'module.exports = null;', loader: 'js' }));
  },
};
