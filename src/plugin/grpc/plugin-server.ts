// The gRPC server go-plugin's client dials: the provider service plus the helper services
// (controller for Shutdown, stdio, health). The protocol descriptor is a prebuilt JSON
// (scripts/gen-proto.mjs), so start-up parses no .proto text.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import descriptor from '../generated/descriptor.json' with { type: 'json' };
import type { ProtoGrpcType as TfPluginGrpc } from '../generated/types/tfplugin6.js';
import type { ProtoGrpcType as GoPluginGrpc } from '../generated/types/go-plugin.js';
import type { ProtoGrpcType as HealthGrpc } from '../generated/types/health.js';
import type { ProviderHandlers } from '../generated/types/tfplugin6/Provider.js';

export const LOADER_OPTIONS: protoLoader.Options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

type Loaded = TfPluginGrpc & GoPluginGrpc & HealthGrpc;

export function loadProtocol(): Loaded {
  const definition = protoLoader.fromJSON(descriptor as protobufjsINamespace, LOADER_OPTIONS);
  return grpc.loadPackageDefinition(definition) as unknown as Loaded;
}
type protobufjsINamespace = Parameters<typeof protoLoader.fromJSON>[0];

export interface PluginServerHooks {
  /** GRPCController.Shutdown: the host is done with us. */
  onShutdown(): void;
}

export function createPluginServer(provider: ProviderHandlers, hooks: PluginServerHooks): grpc.Server {
  const proto = loadProtocol();
  // Core may send schema responses and states of tens of MiB; grpc-js defaults to 4 MiB.
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 256 << 20, 'grpc.max_send_message_length': 256 << 20 });
  server.addService(proto.tfplugin6.Provider.service, provider);
  server.addService(proto.plugin.GRPCController.service, {
    Shutdown: (_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<object>) => {
      callback(null, {});
      // Let the reply flush before the process goes away.
      setImmediate(() => hooks.onShutdown());
    },
  });
  server.addService(proto.plugin.GRPCStdio.service, {
    // Our logs already go to stderr, which the host reads directly; keep the stream idle.
    StreamStdio: (call: grpc.ServerWritableStream<unknown, unknown>) => {
      call.on('cancelled', () => call.end());
    },
  });
  server.addService(proto.grpc.health.v1.Health.service, {
    Check: (_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<object>) => callback(null, { status: 'SERVING' }),
    Watch: (call: grpc.ServerWritableStream<unknown, object>) => {
      call.write({ status: 'SERVING' });
    },
  });
  return server;
}
