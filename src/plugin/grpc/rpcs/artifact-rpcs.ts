// The managed-resource RPCs of takoform_artifact, and the one switch that sends its requests
// there instead of to the Host-resource lifecycle (artifact/artifact-resource.ts says why it is
// a separate small implementation). Handlers only convert, as everywhere in grpc/.
import type * as grpc from '@grpc/grpc-js';
import type { ProviderHandlers } from '../../generated/types/tfplugin6/Provider.js';
import { errorDiag } from '../../diag/diagnostics.js';
import { applyArtifact, importArtifactRefused, planArtifact, readArtifact, validateArtifact } from '../../artifact/artifact-resource.js';
import { ARTIFACT_SCHEMA, ARTIFACT_TYPE, ARTIFACT_TYPE_NAME } from '../../artifact/artifact-schema.js';
import type { TakoformProvider } from '../../provider/provider.js';
import { readOnlyDiagnostics } from '../../schema/read-only.js';
import { toProtoDiagnostics } from '../convert.js';
import { decodeObject, encodeDynamic } from '../dynamic-value.js';
import { stateJsonProblem } from './resource-rpcs.js';
import type { unaryRpc } from './unary.js';

type Routed = 'ValidateResourceConfig' | 'UpgradeResourceState' | 'ReadResource' | 'PlanResourceChange' | 'ApplyResourceChange' | 'ImportResourceState';

export function artifactRpcs(provider: TakoformProvider, unary: ReturnType<typeof unaryRpc>) {
  return {
    ValidateResourceConfig: unary('ValidateResourceConfig', (req) => {
      const config = decodeObject(req.config, ARTIFACT_TYPE);
      return {
        diagnostics: toProtoDiagnostics(config ? [...readOnlyDiagnostics(ARTIFACT_TYPE_NAME, ARTIFACT_SCHEMA.block, config), ...validateArtifact(config)] : []),
      };
    }),

    UpgradeResourceState: unary('UpgradeResourceState', (req) => {
      const json = req.raw_state?.json ?? Buffer.alloc(0);
      const problem = Number(req.version) > ARTIFACT_SCHEMA.version ? 'written by a newer provider' : stateJsonProblem(json);
      if (problem)
        return { diagnostics: toProtoDiagnostics([errorDiag('Unreadable resource state', `The stored ${ARTIFACT_TYPE_NAME} state is ${problem}.`)]) };
      return { upgraded_state: { json }, diagnostics: [] };
    }),

    ReadResource: unary('ReadResource', async (req) => {
      const current = decodeObject(req.current_state, ARTIFACT_TYPE);
      if (!current) return { new_state: encodeDynamic(null, ARTIFACT_TYPE), diagnostics: [] };
      const result = await readArtifact(provider, current);
      return { new_state: encodeDynamic(result.state, ARTIFACT_TYPE), private: req.private, diagnostics: toProtoDiagnostics(result.diagnostics) };
    }),

    PlanResourceChange: unary('PlanResourceChange', async (req) => {
      const decode = (v: typeof req.config) => decodeObject(v, ARTIFACT_TYPE);
      const result = await planArtifact(decode(req.proposed_new_state), decode(req.config));
      if (result.diagnostics.some((d) => d.severity === 'error')) return { diagnostics: toProtoDiagnostics(result.diagnostics) };
      return { planned_state: encodeDynamic(result.state, ARTIFACT_TYPE), requires_replace: [], diagnostics: toProtoDiagnostics(result.diagnostics) };
    }),

    ApplyResourceChange: unary('ApplyResourceChange', async (req) => {
      const decode = (v: typeof req.config) => decodeObject(v, ARTIFACT_TYPE);
      const result = await applyArtifact(provider, decode(req.prior_state), decode(req.planned_state));
      return { new_state: encodeDynamic(result.state, ARTIFACT_TYPE), diagnostics: toProtoDiagnostics(result.diagnostics) };
    }),

    ImportResourceState: unary('ImportResourceState', () => ({ imported_resources: [], diagnostics: toProtoDiagnostics([importArtifactRefused()]) })),
  } satisfies Pick<ProviderHandlers, Routed>;
}

/** The resource RPCs with takoform_artifact's requests sent to its own handlers. */
export function routeArtifact<H extends Pick<ProviderHandlers, Routed>>(lifecycle: H, artifact: Pick<ProviderHandlers, Routed>): H {
  const pick =
    <Req extends { type_name?: string }, Res>(a: grpc.handleUnaryCall<Req, Res>, b: grpc.handleUnaryCall<Req, Res>): grpc.handleUnaryCall<Req, Res> =>
    (call, callback) =>
      (call.request.type_name === ARTIFACT_TYPE_NAME ? a : b)(call, callback);
  return {
    ...lifecycle,
    ValidateResourceConfig: pick(artifact.ValidateResourceConfig, lifecycle.ValidateResourceConfig),
    UpgradeResourceState: pick(artifact.UpgradeResourceState, lifecycle.UpgradeResourceState),
    ReadResource: pick(artifact.ReadResource, lifecycle.ReadResource),
    PlanResourceChange: pick(artifact.PlanResourceChange, lifecycle.PlanResourceChange),
    ApplyResourceChange: pick(artifact.ApplyResourceChange, lifecycle.ApplyResourceChange),
    ImportResourceState: pick(artifact.ImportResourceState, lifecycle.ImportResourceState),
  };
}
