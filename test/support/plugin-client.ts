// Drives the bundled provider executable the way go-plugin's client (inside tofu/terraform)
// does: the magic cookie and a client certificate in the environment, one handshake line on
// stdout, then tfplugin6 over the unix socket with mutual TLS. Shared by the plugin-process
// tests and the reliability scenarios, which call the real RPCs with hostile input.
import * as grpc from '@grpc/grpc-js';
import { spawn, type ChildProcess } from 'node:child_process';
import { loadProtocol } from '../../src/plugin/grpc/plugin-server.js';
import { createServerCertificate } from '../../src/plugin/handshake/certificate.js';
import { MAGIC_COOKIE_VALUE } from '../../src/plugin/handshake/handshake-line.js';
import type { GRPCControllerClient } from '../../src/plugin/generated/types/plugin/GRPCController.js';
import type { ProviderClient } from '../../src/plugin/generated/types/tfplugin6/Provider.js';
import type {
  _tfplugin6_ApplyResourceChange_Request as ApplyReq,
  _tfplugin6_ApplyResourceChange_Response__Output as ApplyRes,
} from '../../src/plugin/generated/types/tfplugin6/ApplyResourceChange.js';
import type {
  _tfplugin6_CallFunction_Request as CallFunctionReq,
  _tfplugin6_CallFunction_Response__Output as CallFunctionRes,
} from '../../src/plugin/generated/types/tfplugin6/CallFunction.js';
import type {
  _tfplugin6_ConfigureProvider_Request as ConfigureReq,
  _tfplugin6_ConfigureProvider_Response__Output as ConfigureRes,
} from '../../src/plugin/generated/types/tfplugin6/ConfigureProvider.js';
import type { _tfplugin6_GetProviderSchema_Response__Output as SchemaRes } from '../../src/plugin/generated/types/tfplugin6/GetProviderSchema.js';
import type {
  _tfplugin6_ImportResourceState_Request as ImportReq,
  _tfplugin6_ImportResourceState_Response__Output as ImportRes,
} from '../../src/plugin/generated/types/tfplugin6/ImportResourceState.js';
import type {
  _tfplugin6_MoveResourceState_Request as MoveReq,
  _tfplugin6_MoveResourceState_Response__Output as MoveRes,
} from '../../src/plugin/generated/types/tfplugin6/MoveResourceState.js';
import type {
  _tfplugin6_PlanResourceChange_Request as PlanReq,
  _tfplugin6_PlanResourceChange_Response__Output as PlanRes,
} from '../../src/plugin/generated/types/tfplugin6/PlanResourceChange.js';
import type {
  _tfplugin6_ReadDataSource_Request as ReadDataReq,
  _tfplugin6_ReadDataSource_Response__Output as ReadDataRes,
} from '../../src/plugin/generated/types/tfplugin6/ReadDataSource.js';
import type {
  _tfplugin6_ReadResource_Request as ReadReq,
  _tfplugin6_ReadResource_Response__Output as ReadRes,
} from '../../src/plugin/generated/types/tfplugin6/ReadResource.js';
import type {
  _tfplugin6_UpgradeResourceIdentity_Request as UpgradeIdentityReq,
  _tfplugin6_UpgradeResourceIdentity_Response__Output as UpgradeIdentityRes,
} from '../../src/plugin/generated/types/tfplugin6/UpgradeResourceIdentity.js';
import type {
  _tfplugin6_UpgradeResourceState_Request as UpgradeReq,
  _tfplugin6_UpgradeResourceState_Response__Output as UpgradeRes,
} from '../../src/plugin/generated/types/tfplugin6/UpgradeResourceState.js';
import type {
  _tfplugin6_ValidateDataResourceConfig_Request as ValidateDataReq,
  _tfplugin6_ValidateDataResourceConfig_Response__Output as ValidateDataRes,
} from '../../src/plugin/generated/types/tfplugin6/ValidateDataResourceConfig.js';
import type {
  _tfplugin6_ValidateProviderConfig_Request as ValidateProviderReq,
  _tfplugin6_ValidateProviderConfig_Response__Output as ValidateProviderRes,
} from '../../src/plugin/generated/types/tfplugin6/ValidateProviderConfig.js';
import type {
  _tfplugin6_ValidateResourceConfig_Request as ValidateReq,
  _tfplugin6_ValidateResourceConfig_Response__Output as ValidateRes,
} from '../../src/plugin/generated/types/tfplugin6/ValidateResourceConfig.js';
import { PROVIDER_BUNDLE, requireFile } from './paths.js';

/** What go-plugin's client puts into the plugin's environment. */
export const PLUGIN_COOKIE = { TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: '5,6' } as const;

export interface SpawnedPlugin {
  readonly child: ChildProcess;
  /** The handshake line, without its newline. */
  readonly line: string;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<number | null>;
}

/** Starts the plugin executable and waits for its handshake line (10 s at most). */
export function spawnPlugin(env: NodeJS.ProcessEnv, cwd: string, nodeArgs: readonly string[] = []): Promise<SpawnedPlugin> {
  requireFile(PROVIDER_BUNDLE, 'run `npm run build` first');
  const child = spawn(process.execPath, [...nodeArgs, PROVIDER_BUNDLE], { cwd, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    // Keep the tail only: a fuzzing run logs a lot, and only the end explains a crash.
    err = (err + d.toString()).slice(-64_000);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no handshake within 10 s; stderr: ${err}`)), 10_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve({ child, line: out.split('\n')[0]!, stdout: () => out, stderr: () => err, exited });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`plugin exited ${code} before the handshake; stderr: ${err}`));
    });
  });
}

/** The handshake carries the server certificate as unpadded base64 DER. */
export function derToPem(base64NoPad: string): string {
  const b64 = Buffer.from(base64NoPad, 'base64').toString('base64');
  return `-----BEGIN CERTIFICATE-----\n${b64.replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;
}

export const TLS_CHANNEL_OPTIONS = {
  'grpc.ssl_target_name_override': 'localhost',
  'grpc.default_authority': 'localhost',
  // Responses (schemas with many Forms) may exceed grpc-js's 4 MiB default.
  'grpc.max_receive_message_length': -1,
  'grpc.max_send_message_length': -1,
} as const;

/** Parses the handshake line: CORE|APP|NETWORK|ADDRESS|PROTOCOL|CERT. */
export function parseHandshake(line: string): { core: string; app: string; network: string; address: string; protocol: string; cert: string } {
  const [core = '', app = '', network = '', address = '', protocol = '', cert = ''] = line.split('|');
  return { core, app, network, address, protocol, cert };
}

type UnaryStart<Res> = (metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<Res>) => grpc.ClientUnaryCall;

/** A unary call with a deadline; a gRPC error status rejects with the ServiceError. */
export function unary<Res>(start: UnaryStart<Res>, timeoutMs: number): Promise<Res> {
  return new Promise((resolve, reject) => {
    start(new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) =>
      err ? reject(err) : res ? resolve(res) : reject(new Error('empty response')),
    );
  });
}

export function isServiceError(e: unknown): e is grpc.ServiceError {
  return e instanceof Error && typeof (e as Partial<grpc.ServiceError>).code === 'number' && 'metadata' in e;
}

export interface PluginClient {
  readonly process: SpawnedPlugin;
  readonly provider: ProviderClient;
  readonly controller: GRPCControllerClient;
  /** Per-call deadline in milliseconds. */
  timeoutMs: number;
  getProviderSchema(): Promise<SchemaRes>;
  validateProviderConfig(req: ValidateProviderReq): Promise<ValidateProviderRes>;
  configureProvider(req: ConfigureReq): Promise<ConfigureRes>;
  validateResourceConfig(req: ValidateReq): Promise<ValidateRes>;
  planResourceChange(req: PlanReq): Promise<PlanRes>;
  applyResourceChange(req: ApplyReq): Promise<ApplyRes>;
  readResource(req: ReadReq): Promise<ReadRes>;
  upgradeResourceState(req: UpgradeReq): Promise<UpgradeRes>;
  upgradeResourceIdentity(req: UpgradeIdentityReq): Promise<UpgradeIdentityRes>;
  importResourceState(req: ImportReq): Promise<ImportRes>;
  moveResourceState(req: MoveReq): Promise<MoveRes>;
  validateDataResourceConfig(req: ValidateDataReq): Promise<ValidateDataRes>;
  readDataSource(req: ReadDataReq): Promise<ReadDataRes>;
  callFunction(req: CallFunctionReq): Promise<CallFunctionRes>;
  /** True while the process has not exited. */
  alive(): boolean;
  /** GRPCController.Shutdown, then waits for the exit code (SIGKILL after 5 s). */
  shutdown(): Promise<number | null>;
  /** Closes the channels and kills the process if it still runs. */
  kill(): void;
}

/** Opens the provider and controller clients over mTLS to a spawned plugin. */
export function connectPlugin(spawned: SpawnedPlugin, client: { certPem: string; keyPem: string }, timeoutMs = 20_000): PluginClient {
  const { address, cert } = parseHandshake(spawned.line);
  const proto = loadProtocol();
  const creds = grpc.credentials.createSsl(Buffer.from(derToPem(cert)), Buffer.from(client.keyPem), Buffer.from(client.certPem));
  const provider = new proto.tfplugin6.Provider(`unix://${address}`, creds, TLS_CHANNEL_OPTIONS);
  const controller = new proto.plugin.GRPCController(`unix://${address}`, creds, TLS_CHANNEL_OPTIONS);
  const self: PluginClient = {
    process: spawned,
    provider,
    controller,
    timeoutMs,
    getProviderSchema: () => unary<SchemaRes>((m, o, cb) => provider.GetProviderSchema({}, m, o, cb), self.timeoutMs),
    validateProviderConfig: (req) => unary<ValidateProviderRes>((m, o, cb) => provider.ValidateProviderConfig(req, m, o, cb), self.timeoutMs),
    configureProvider: (req) => unary<ConfigureRes>((m, o, cb) => provider.ConfigureProvider(req, m, o, cb), self.timeoutMs),
    validateResourceConfig: (req) => unary<ValidateRes>((m, o, cb) => provider.ValidateResourceConfig(req, m, o, cb), self.timeoutMs),
    planResourceChange: (req) => unary<PlanRes>((m, o, cb) => provider.PlanResourceChange(req, m, o, cb), self.timeoutMs),
    applyResourceChange: (req) => unary<ApplyRes>((m, o, cb) => provider.ApplyResourceChange(req, m, o, cb), self.timeoutMs),
    readResource: (req) => unary<ReadRes>((m, o, cb) => provider.ReadResource(req, m, o, cb), self.timeoutMs),
    upgradeResourceState: (req) => unary<UpgradeRes>((m, o, cb) => provider.UpgradeResourceState(req, m, o, cb), self.timeoutMs),
    upgradeResourceIdentity: (req) => unary<UpgradeIdentityRes>((m, o, cb) => provider.UpgradeResourceIdentity(req, m, o, cb), self.timeoutMs),
    importResourceState: (req) => unary<ImportRes>((m, o, cb) => provider.ImportResourceState(req, m, o, cb), self.timeoutMs),
    moveResourceState: (req) => unary<MoveRes>((m, o, cb) => provider.MoveResourceState(req, m, o, cb), self.timeoutMs),
    validateDataResourceConfig: (req) => unary<ValidateDataRes>((m, o, cb) => provider.ValidateDataResourceConfig(req, m, o, cb), self.timeoutMs),
    readDataSource: (req) => unary<ReadDataRes>((m, o, cb) => provider.ReadDataSource(req, m, o, cb), self.timeoutMs),
    callFunction: (req) => unary<CallFunctionRes>((m, o, cb) => provider.CallFunction(req, m, o, cb), self.timeoutMs),
    alive: () => spawned.child.exitCode === null && spawned.child.signalCode === null,
    async shutdown() {
      if (self.alive()) {
        await new Promise<void>((resolve) => controller.Shutdown({}, { deadline: Date.now() + 3000 }, () => resolve()));
      }
      const killer = setTimeout(() => spawned.child.kill('SIGKILL'), 5000);
      const code = await spawned.exited;
      clearTimeout(killer);
      provider.close();
      controller.close();
      return code;
    },
    kill() {
      provider.close();
      controller.close();
      if (self.alive()) spawned.child.kill('SIGKILL');
    },
  };
  return self;
}

/** Spawns the plugin with AutoMTLS (a fresh client certificate) and connects to it. */
export async function startPluginClient(options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<PluginClient> {
  const clientCert = createServerCertificate();
  const spawned = await spawnPlugin({ ...PLUGIN_COOKIE, ...options.env, PLUGIN_CLIENT_CERT: clientCert.certPem }, options.cwd);
  return connectPlugin(spawned, clientCert, options.timeoutMs);
}
