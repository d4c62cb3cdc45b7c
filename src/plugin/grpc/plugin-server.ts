// The plugin protocol as gRPC clients load it (the test suites' clients, which play core's
// part): client constructors over the pre-generated codecs of generated/protocol.ts. The
// plugin's own server is plugin-services.ts, which does not load @grpc/grpc-js.
import * as grpc from '@grpc/grpc-js';
import { PACKAGE_DEFINITION } from '../generated/protocol.js';
import type { ProtoGrpcType as TfPluginGrpc } from '../generated/types/tfplugin6.js';
import type { ProtoGrpcType as GoPluginGrpc } from '../generated/types/go-plugin.js';
import type { ProtoGrpcType as HealthGrpc } from '../generated/types/health.js';

/** The options the message objects follow (as proto-loader would load them). */
export const LOADER_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true } as const;

type Loaded = TfPluginGrpc & GoPluginGrpc & HealthGrpc;

/** Client constructors and service definitions, as grpc.loadPackageDefinition makes them. */
export function loadProtocol(): Loaded {
  return grpc.loadPackageDefinition(PACKAGE_DEFINITION) as unknown as Loaded;
}
