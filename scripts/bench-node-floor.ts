// The Node floor of the benchmark (scripts/bench.mjs --state-floor, variant 'node floor'): the
// Go state floor's job (scripts/bench-state-floor) done on our own stack. It serves our exact
// schema, identity and state on the provider's own transport (grpc/h2-server.ts with the
// pre-generated codecs, the go-plugin handshake with AutoMTLS) and its own msgpack codec, and
// does no work of its own: no Host, no validation, no journal. A refresh decodes the state and
// hands it back, a create fills in locally what the Host would, a delete forgets.
//
// So what a command costs with it is what any provider written in Node on this stack would
// cost core, Node and the transport for this state, before the first Host request: the floor
// of our provider's design, where the Go floor is the floor of any design.
//
// With NODE_FLOOR_HOST=1 it also makes the Host requests ours makes, through our Host client
// and no more: one discovery per configured launch, a read per refresh, prepare and apply per
// create and update (both at apply; ours prepares at plan and reuses it at apply: the same two),
// a fenced delete per destroy. No journal, no validation, no diagnostics beyond an error, no
// state built from the answer beyond the Host's counters. That is the floor of our design with
// the Host API's requests: what is left above it is our provider's own per-resource work.
//
// It is bundled and installed by the bench like ours in the wrapper form (loader, bundle, code
// cache); nothing here is shipped.
import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import type { ProviderHandlers } from '../src/plugin/generated/types/tfplugin6/Provider.js';
import type { DynamicValue__Output } from '../src/plugin/generated/types/tfplugin6/DynamicValue.js';
import { HostClient } from '../src/host-client/client.js';
import type { FormRef, JsonObject, ResourceResponse } from '../src/host-client/wire-types.js';
import { toProtoSchema } from '../src/plugin/grpc/convert.js';
import { decodeObject, encodeDynamic } from '../src/plugin/grpc/dynamic-value.js';
import { createPluginServer, firstRpcMs, rpcCounts } from '../src/plugin/grpc/plugin-services.js';
import type { ServerCall } from '../src/plugin/grpc/h2-server.js';
import { createServerCertificate } from '../src/plugin/handshake/certificate.js';
import { formatHandshakeLine } from '../src/plugin/handshake/handshake-line.js';
import { planListenSocket } from '../src/plugin/handshake/socket-path.js';
import { markHandshake, processStatsLine, type HandshakeMark } from '../src/plugin/process-stats.js';
import { impliedType, type Nesting, type TfAttribute, type TfBlock, type TfSchema } from '../src/plugin/schema/tf-schema.js';
import { T, typeFromJson, type TfType } from '../src/plugin/values/tf-type.js';
import { UNKNOWN, isUnknown, type TfObject, type TfValue } from '../src/plugin/values/tf-value.js';

/** `tofu providers schema -json`'s spelling of an attribute and a block. */
interface JsonAttribute {
  type?: unknown;
  nested_type?: { attributes: Record<string, JsonAttribute>; nesting_mode: string };
  description?: string;
  required?: boolean;
  optional?: boolean;
  computed?: boolean;
  sensitive?: boolean;
}
interface JsonBlock {
  attributes?: Record<string, JsonAttribute>;
  block_types?: Record<string, { nesting_mode: string; block: JsonBlock }>;
  description?: string;
}
interface JsonSchema {
  version: number;
  block: JsonBlock;
}
interface JsonProvider {
  provider: JsonSchema;
  resource_schemas: Record<string, JsonSchema>;
  data_source_schemas?: Record<string, JsonSchema>;
  resource_identity_schemas?: Record<
    string,
    { version: number; attributes: Record<string, JsonAttribute & { required_for_import?: boolean; optional_for_import?: boolean }> }
  >;
}

const sorted = <V>(m: Record<string, V> | undefined): [string, V][] => Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));

function attribute(name: string, a: JsonAttribute): TfAttribute {
  const common = { name, description: a.description ?? '', required: !!a.required, optional: !!a.optional, computed: !!a.computed, sensitive: !!a.sensitive };
  if (a.nested_type) {
    const nesting = a.nested_type.nesting_mode.toUpperCase() as Nesting;
    return { ...common, nested: { nesting, attributes: sorted(a.nested_type.attributes).map(([n, x]) => attribute(n, x)) } };
  }
  return { ...common, type: typeFromJson(a.type) };
}

function block(b: JsonBlock): TfBlock {
  return {
    attributes: sorted(b.attributes).map(([n, a]) => attribute(n, a)),
    blocks: sorted(b.block_types).map(([typeName, bt]) => {
      if (bt.nesting_mode !== 'single') throw new Error(`nesting ${bt.nesting_mode}`);
      return { typeName, nesting: 'SINGLE' as const, block: block(bt.block) };
    }),
    description: b.description ?? '',
  };
}

const doc = JSON.parse(readFileSync(process.env.STATE_FLOOR_SCHEMA_FILE ?? '', 'utf8')) as { provider_schemas: Record<string, JsonProvider> };
const provider = Object.values(doc.provider_schemas)[0]!;
const schemaOf = (s: JsonSchema): TfSchema => ({ version: s.version, block: block(s.block) });
const resourceSchemas = Object.fromEntries(Object.entries(provider.resource_schemas).map(([k, s]) => [k, schemaOf(s)]));
const valueTypes: Record<string, TfType> = Object.fromEntries(Object.entries(resourceSchemas).map(([k, s]) => [k, impliedType(s.block)]));
const identityTypes: Record<string, TfType> = Object.fromEntries(
  Object.entries(provider.resource_identity_schemas ?? {}).map(([k, s]) => [
    k,
    T.object(Object.fromEntries(Object.keys(s.attributes).map((n) => [n, T.string]))),
  ]),
);
const formRef = JSON.parse(process.env.STATE_FLOOR_FORM_REF ?? '{}') as Record<string, string>;
const space = process.env.TAKOFORM_SPACE ?? '';
const CAPABILITIES = { get_provider_schema_optional: true, plan_destroy: false, move_resource_state: true };
/** What the Host decides at apply, planned unknown on create as ours plans it. */
const DECIDED_AT_APPLY = ['id', 'uid', 'generation', 'revision', 'conditions', 'conditions_json', 'ready', 'outputs_json', 'pending_operation'];
/** ...and on update: what a Host apply moves. */
const MOVED_BY_UPDATE = ['generation', 'revision', 'conditions', 'conditions_json', 'ready', 'outputs_json', 'pending_operation'];
/** The envelope: every attribute that is not a field of the Form's spec. */
const ENVELOPE = new Set([...DECIDED_AT_APPLY, 'name', 'space', 'form_ref', 'timeouts']);
const withHost = process.env.NODE_FLOOR_HOST === '1';
let client: HostClient | undefined;
const hostRef: FormRef = {
  apiVersion: formRef.api_version ?? '',
  kind: formRef.kind ?? '',
  definitionVersion: formRef.definition_version ?? '',
  schemaDigest: formRef.schema_digest ?? '',
};
const host = (): HostClient => {
  if (!client) throw new Error('the provider is not configured');
  return client;
};
const text = (v: TfValue | undefined): string => (typeof v === 'string' ? v : '');
const address = (state: TfObject) => ({ formRef: hostRef, space: text(state.space), name: text(state.name) });

/** The spec a state or plan asks for: every known, non-null attribute outside the envelope. */
function specOf(o: TfObject): JsonObject {
  const spec: JsonObject = {};
  for (const [k, v] of Object.entries(o)) {
    if (ENVELOPE.has(k) || v === null || isUnknown(v)) continue;
    spec[k] = typeof v === 'string' || typeof v === 'boolean' ? v : Number(String(v));
  }
  return spec;
}

/** Prepare, then the fenced apply of what was prepared: the two requests of a create or update. */
async function prepareAndApply(planned: TfObject, prior: TfObject | null): Promise<ResourceResponse> {
  const a = address(planned);
  const request = {
    apiVersion: hostRef.apiVersion,
    kind: hostRef.kind,
    form: { formRef: hostRef },
    metadata: { name: a.name, space: a.space },
    spec: specOf(planned),
  };
  const expectedGeneration = prior ? text(prior.generation) : undefined;
  const prepared = await host().resources.prepare(request, expectedGeneration);
  const fence = prior ? { kind: 'update' as const, expectedGeneration: text(prior.generation), expectedUid: text(prior.uid) } : { kind: 'create' as const };
  return (await host().resources.apply({ ...request, spec: prepared.spec }, prepared, fence)).resource;
}

/** The Host's counters and status in our state's shapes. */
function fromHost(planned: TfObject, r: ResourceResponse): TfObject {
  const out: Record<string, TfValue> = { ...planned };
  out.id = `${r.metadata.space}/${r.apiVersion}/${r.kind}/${r.metadata.uid}`;
  out.uid = r.metadata.uid;
  out.generation = r.metadata.generation;
  out.revision = r.metadata.revision;
  out.ready = r.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True');
  out.conditions_json = JSON.stringify(r.status.conditions);
  out.outputs_json = JSON.stringify(r.status.outputs ?? {});
  out.pending_operation = null;
  if (isUnknown(planned.mode ?? null)) out.mode = typeof r.spec.mode === 'string' ? r.spec.mode : null;
  return out;
}

const typeOf = (name: string): TfType => {
  const t = valueTypes[name];
  if (!t) throw new Error(`no resource type ${name}`);
  return t;
};
const attributesOf = (t: TfType): Readonly<Record<string, TfType>> => (t.kind === 'object' ? t.attributes : {});
const identity = (typeName: string, identityData: { identity_data?: DynamicValue__Output | null } | null | undefined) =>
  identityTypes[typeName] && identityData?.identity_data ? { identity_data: identityData.identity_data } : undefined;

function plannedCreate(typeName: string, proposed: TfObject): TfObject {
  const attrs = attributesOf(typeOf(typeName));
  const out: Record<string, TfValue> = { ...proposed };
  for (const k of DECIDED_AT_APPLY) if (k in attrs) out[k] = UNKNOWN;
  if ('mode' in attrs && proposed.mode === null) out.mode = UNKNOWN;
  if ('space' in attrs && proposed.space === null) out.space = space;
  if ('form_ref' in attrs) out.form_ref = Object.fromEntries(Object.keys(attributesOf(attrs.form_ref!)).map((k) => [k, formRef[k] ?? null]));
  return out;
}

/** The identity of a new resource, as ours gives it (undefined for a type without one). */
function identityFor(typeName: string, planned: TfObject): TfObject | undefined {
  if (!identityTypes[typeName]) return undefined;
  return { api_version: formRef.api_version ?? null, kind: formRef.kind ?? null, name: planned.name ?? null, space: planned.space ?? null };
}

/** A new resource's state, filled in locally as the Host would fill it. */
function created(typeName: string, planned: TfObject): TfObject {
  const attrs = attributesOf(typeOf(typeName));
  const uid = `res_${randomBytes(12).toString('hex')}`;
  const out: Record<string, TfValue> = { ...planned };
  const set = (k: string, v: TfValue) => {
    if (k in attrs) out[k] = v;
  };
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  set('id', `${planned.space}/${formRef.api_version}/${formRef.kind}/${uid}`);
  set('uid', uid);
  set('generation', '1');
  set('revision', '1');
  set('ready', true);
  set('outputs_json', '{}');
  set('pending_operation', null);
  if (isUnknown(planned.mode ?? null)) set('mode', 'safe');
  set('conditions_json', `[{"hostReason":null,"lastTransitionTime":"${at}","message":null,"reason":"Available","status":"True","type":"Ready"}]`);
  if ('conditions' in attrs)
    out.conditions = [{ type: 'Ready', status: 'True', reason: 'Available', message: null, host_reason: null, last_transition_time: at }];
  return out;
}

type Callback = (error: null, value: object) => void;
const answer =
  <Req>(fn: (req: Req) => object | Promise<object>) =>
  (call: ServerCall, callback: Callback) => {
    Promise.resolve()
      .then(() => fn(call.request as Req))
      .then(
        (value) => callback(null, value),
        (e: unknown) => callback(null, { diagnostics: [{ severity: 'ERROR', summary: e instanceof Error ? e.message : String(e), detail: '' }] }),
      );
  };

// The requests as the pre-generated codecs decode them (only the fields the floor reads).
interface Req {
  type_name: string;
  current_state?: DynamicValue__Output;
  prior_state?: DynamicValue__Output;
  proposed_new_state?: DynamicValue__Output;
  planned_state?: DynamicValue__Output;
  raw_state?: { json?: Buffer };
  raw_identity?: { json?: Buffer };
  private?: Buffer;
  prior_private?: Buffer;
  planned_private?: Buffer;
  current_identity?: { identity_data?: DynamicValue__Output | null };
  prior_identity?: { identity_data?: DynamicValue__Output | null };
  planned_identity?: { identity_data?: DynamicValue__Output | null };
  config?: DynamicValue__Output;
}

const handlers = {
  GetMetadata: answer(() => ({
    server_capabilities: CAPABILITIES,
    resources: Object.keys(resourceSchemas).map((type_name) => ({ type_name })),
    data_sources: Object.keys(provider.data_source_schemas ?? {}).map((type_name) => ({ type_name })),
    diagnostics: [],
  })),
  GetProviderSchema: answer(() => ({
    provider: toProtoSchema(schemaOf(provider.provider)),
    resource_schemas: Object.fromEntries(Object.entries(resourceSchemas).map(([k, s]) => [k, toProtoSchema(s)])),
    data_source_schemas: Object.fromEntries(Object.entries(provider.data_source_schemas ?? {}).map(([k, s]) => [k, toProtoSchema(schemaOf(s))])),
    server_capabilities: CAPABILITIES,
    diagnostics: [],
  })),
  GetResourceIdentitySchemas: answer(() => ({
    identity_schemas: Object.fromEntries(
      Object.entries(provider.resource_identity_schemas ?? {}).map(([k, s]) => [
        k,
        {
          version: String(s.version),
          identity_attributes: sorted(s.attributes).map(([name, a]) => ({
            name,
            type: Buffer.from('"string"'),
            required_for_import: !!a.required_for_import,
            optional_for_import: !!a.optional_for_import,
            description: a.description ?? '',
          })),
        },
      ]),
    ),
    diagnostics: [],
  })),
  ValidateProviderConfig: answer(() => ({ diagnostics: [] })),
  ConfigureProvider: answer(async () => {
    if (withHost) {
      client = new HostClient({ endpoint: process.env.TAKOFORM_ENDPOINT ?? '', token: process.env.TAKOFORM_TOKEN ?? '' });
      await client.discover();
    }
    return { diagnostics: [] };
  }),
  StopProvider: answer(() => ({ Error: '' })),
  GetFunctions: answer(() => ({ functions: {}, diagnostics: [] })),
  ValidateResourceConfig: answer(() => ({ diagnostics: [] })),
  ValidateDataResourceConfig: answer(() => ({ diagnostics: [] })),
  // Same schema version: the JSON goes back untouched, as ours hands it back (core decodes it).
  UpgradeResourceState: answer((req: Req) => ({ upgraded_state: { json: req.raw_state?.json ?? Buffer.from('null') }, diagnostics: [] })),
  UpgradeResourceIdentity: answer((req: Req) => {
    const raw = JSON.parse((req.raw_identity?.json ?? Buffer.from('null')).toString('utf8')) as TfObject;
    return { upgraded_identity: { identity_data: encodeDynamic(raw, identityTypes[req.type_name]!) }, diagnostics: [] };
  }),
  ReadResource: answer(async (req: Req) => {
    // Decoded as any provider would, to know what to ask for (the Host is asked with NODE_FLOOR_HOST).
    const type = typeOf(req.type_name);
    const current = decodeObject(req.current_state, type);
    if (withHost && current && !(await host().resources.read(address(current)))) return { new_state: encodeDynamic(null, type), diagnostics: [] };
    return { new_state: req.current_state, private: req.private, ...spread('new_identity', identity(req.type_name, req.current_identity)), diagnostics: [] };
  }),
  PlanResourceChange: answer((req: Req) => {
    const type = typeOf(req.type_name);
    const prior = decodeObject(req.prior_state, type);
    if (prior === null) {
      const proposed = decodeObject(req.proposed_new_state, type);
      if (proposed === null) return { planned_state: req.proposed_new_state, diagnostics: [] };
      return { planned_state: encodeDynamic(plannedCreate(req.type_name, proposed), type), diagnostics: [] };
    }
    if (withHost) {
      // An update the Host will apply: what it moves is unknown until then, as ours plans it.
      const proposed = decodeObject(req.proposed_new_state, type);
      if (proposed !== null && JSON.stringify(specOf(proposed)) !== JSON.stringify(specOf(prior))) {
        const planned: Record<string, TfValue> = { ...proposed };
        for (const k of MOVED_BY_UPDATE) if (k in attributesOf(type)) planned[k] = UNKNOWN;
        return {
          planned_state: encodeDynamic(planned, type),
          planned_private: req.prior_private,
          ...spread('planned_identity', identity(req.type_name, req.prior_identity)),
          diagnostics: [],
        };
      }
    }
    return {
      planned_state: req.proposed_new_state,
      planned_private: req.prior_private,
      ...spread('planned_identity', identity(req.type_name, req.prior_identity)),
      diagnostics: [],
    };
  }),
  ApplyResourceChange: answer(async (req: Req) => {
    const type = typeOf(req.type_name);
    const planned = decodeObject(req.planned_state, type);
    const prior = decodeObject(req.prior_state, type);
    if (planned === null) {
      // A delete: without the Host, nothing to forget but the state.
      if (withHost && prior) await host().resources.delete(address(prior), { expectedGeneration: text(prior.generation), uid: text(prior.uid) });
      return { new_state: req.planned_state, diagnostics: [] };
    }
    if (prior !== null) {
      const state = withHost ? encodeDynamic(fromHost(planned, await prepareAndApply(planned, prior)), type) : req.planned_state;
      return { new_state: state, private: req.planned_private, ...spread('new_identity', identity(req.type_name, req.planned_identity)), diagnostics: [] };
    }
    const state = withHost ? fromHost(planned, await prepareAndApply(planned, null)) : created(req.type_name, planned);
    const ident = identityFor(req.type_name, planned);
    const newIdentity = ident ? { new_identity: { identity_data: encodeDynamic(ident, identityTypes[req.type_name]!) } } : {};
    return { new_state: encodeDynamic(state, type), ...newIdentity, diagnostics: [] };
  }),
};

function spread<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;
}

// Serving as src/plugin/serve.ts serves, without its provider: importing serve.ts would bundle
// and evaluate the whole provider at every launch, which is what the floor leaves out.
async function serve(): Promise<void> {
  const socket = planListenSocket();
  let handshake: HandshakeMark | undefined;
  process.once('exit', () => {
    const file = process.env.TAKOFORM_PROVIDER_STATS_FILE;
    if (file) appendFileSync(file, JSON.stringify(processStatsLine(handshake, rpcCounts, firstRpcMs)) + '\n');
  });
  const exit = () => {
    socket.cleanup();
    process.exit(0);
  };
  const server = createPluginServer(handlers as unknown as ProviderHandlers, {
    onShutdown: () => {
      server.forceShutdown();
      exit();
    },
  });
  const clientCert = process.env.PLUGIN_CLIENT_CERT;
  const cert = clientCert ? createServerCertificate() : undefined;
  const tls = cert && clientCert ? { certPem: cert.certPem, keyPem: cert.keyPem, clientCertPem: clientCert } : undefined;
  const socketPath = socket.target.startsWith('unix://') ? socket.target.slice('unix://'.length) : undefined;
  const port = await server.listen(socketPath === undefined ? {} : { socketPath }, tls);
  const listen = socketPath !== undefined ? { network: 'unix' as const, address: socketPath } : { network: 'tcp' as const, address: `127.0.0.1:${port}` };
  process.stdout.write(formatHandshakeLine(listen, cert?.der));
  handshake = markHandshake();
  process.on('SIGTERM', exit);
}

serve().catch((e: unknown) => {
  process.stderr.write(`node floor: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(2);
});
