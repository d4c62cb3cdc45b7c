// Generates, from proto/*.proto, the things the plugin needs and nobody should edit:
//   src/plugin/generated/protocol.ts      the services with pre-generated message codecs (what
//                                          the provider and the test clients load: no reflection,
//                                          no code generation at start-up; see proto-static.mjs)
//   src/plugin/generated/descriptor.json  the protobufjs descriptor (the reference the protocol
//                                          test compares protocol.ts with, through proto-loader)
//   src/plugin/generated/types/           TypeScript message/service types (proto-loader-gen-types)
// The generated folder is ignored by git; `npm run build` and `npm test` regenerate it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { staticProtocolModule } from './proto-static.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const protoFiles = ['tfplugin6.proto', 'go-plugin.proto', 'health.proto'];
const outDir = path.join(root, 'src/plugin/generated');

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

const pbRoot = new protobuf.Root();
pbRoot.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? target : path.join(root, 'proto', target));
pbRoot.loadSync(protoFiles, { keepCase: true });
pbRoot.resolveAll();
writeFileSync(path.join(outDir, 'descriptor.json'), JSON.stringify(pbRoot.toJSON({ keepComments: false })));
writeFileSync(path.join(outDir, 'protocol.ts'), staticProtocolModule(pbRoot));

execFileSync(
  process.execPath,
  [
    path.join(root, 'node_modules/@grpc/proto-loader/build/bin/proto-loader-gen-types.js'),
    '--keepCase',
    '--longs=String',
    '--enums=String',
    '--defaults',
    '--oneofs',
    '--grpcLib=@grpc/grpc-js',
    '-I',
    path.join(root, 'proto'),
    '-O',
    path.join(outDir, 'types'),
    ...protoFiles,
  ],
  { stdio: 'inherit' },
);
// The generator writes extensionless relative imports; NodeNext resolution wants ".js".
for (const file of listFiles(path.join(outDir, 'types'))) {
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace(/from '(\.{1,2}\/[^']+)'/g, "from '$1.js'"));
}
console.error(`gen-proto: wrote ${path.relative(root, outDir)}`);

function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}
