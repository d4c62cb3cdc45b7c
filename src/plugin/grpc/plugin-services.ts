// The gRPC server go-plugin's client dials: the provider service plus the helper services
// (controller for Shutdown, stdio, health), on our own HTTP/2 server (h2-server.ts) with the
// pre-generated codecs (scripts/proto-static.mjs): start-up parses no .proto text and no
// descriptor, generates no code and loads no gRPC library.
import { PACKAGE_DEFINITION } from '../generated/protocol.js';
import type { ProviderHandlers } from '../generated/types/tfplugin6/Provider.js';
import { GrpcH2Server, type ServerCall } from './h2-server.js';

/** Core may send schema responses and states of tens of MiB (grpc-js defaults to 4 MiB). */
const MAX_MESSAGE_BYTES = 256 << 20;

export interface PluginServerHooks {
  /** GRPCController.Shutdown: the host is done with us. */
  onShutdown(): void;
}

/** Calls per provider RPC in this process (for the benchmark's statistics, see serve.ts). */
export const rpcCounts: Record<string, number> = {};
/** Milliseconds from process start to the first RPC (for the benchmark's per-launch timeline). */
export let firstRpcMs: number | undefined;

/** Counts each call, then runs the handler (a counter increment: free next to a gRPC call). */
function counted(handlers: ProviderHandlers): object {
  const out: Record<string, unknown> = {};
  for (const [name, handler] of Object.entries(handlers)) {
    out[name] = (...args: unknown[]) => {
      rpcCounts[name] = (rpcCounts[name] ?? 0) + 1;
      firstRpcMs ??= Math.round(process.uptime() * 1000);
      return (handler as (...a: unknown[]) => unknown)(...args);
    };
  }
  return out;
}

type Answer = (error: null, value: object) => void;

export function createPluginServer(provider: ProviderHandlers, hooks: PluginServerHooks): GrpcH2Server {
  const server = new GrpcH2Server(MAX_MESSAGE_BYTES);
  server.addService(service('tfplugin6.Provider'), counted(provider));
  server.addService(service('plugin.GRPCController'), {
    Shutdown: (_call: ServerCall, callback: Answer) => {
      callback(null, {});
      // Let the reply flush before the process goes away.
      setImmediate(() => hooks.onShutdown());
    },
  });
  server.addService(service('plugin.GRPCStdio'), {
    // Our logs already go to stderr, which the host reads directly; keep the stream idle.
    StreamStdio: (call: ServerCall) => {
      call.on('cancelled', () => call.end());
    },
  });
  server.addService(service('grpc.health.v1.Health'), {
    Check: (_call: ServerCall, callback: Answer) => callback(null, { status: 'SERVING' }),
    Watch: (call: ServerCall) => {
      call.write({ status: 'SERVING' });
    },
  });
  return server;
}

function service(name: string): NonNullable<(typeof PACKAGE_DEFINITION)[string]> {
  const definition = PACKAGE_DEFINITION[name];
  if (!definition) throw new Error(`the generated protocol has no service ${name}`);
  return definition;
}
