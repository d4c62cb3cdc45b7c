// Wrapping a handler for one unary RPC: it logs its duration, and any throw becomes an error
// diagnostic — never a gRPC error, which core shows as an opaque "Plugin error".
import type * as grpc from '@grpc/grpc-js';
import type { Diagnostic as ProtoDiagnostic } from '../../generated/types/tfplugin6/Diagnostic.js';
import { errorDiag } from '../../diag/diagnostics.js';
import type { Logger } from '../../logging.js';
import { ValueCodecError } from '../../values/msgpack.js';
import { toProtoDiagnostics } from '../convert.js';

export type AnyResponse = { diagnostics?: ProtoDiagnostic[] };

// Durations come from process.hrtime, not `performance`: the global's first use loads perf_hooks
// (~1 ms), in every launch.
export function unaryRpc(log: Logger) {
  return function unary<Req, Res extends AnyResponse>(rpc: string, fn: (req: Req) => Promise<Res> | Res): grpc.handleUnaryCall<Req, Res> {
    return (call, callback) => {
      const started = process.hrtime.bigint();
      Promise.resolve()
        .then(() => fn(call.request))
        .then(
          (res) => {
            log.trace('rpc', { rpc, duration_ms: Number((process.hrtime.bigint() - started) / 1_000_000n) });
            callback(null, res);
          },
          (e: unknown) => {
            const message = e instanceof ValueCodecError ? `value does not match the schema: ${e.message}` : e instanceof Error ? e.message : String(e);
            log.error('rpc failed', { rpc, error: message });
            // A value that does not fit the schema names where it is, so core can point at it.
            const path = e instanceof ValueCodecError && e.path.length ? e.path : undefined;
            const detail = `${message}\n\nThis is a bug in the takoform provider; please report it with the TF_LOG=trace output.`;
            callback(null, { diagnostics: toProtoDiagnostics([errorDiag(`Provider error in ${rpc}`, detail, path)]) } as Res);
          },
        );
    };
  };
}
