// Drives the bundled plugin executable the way go-plugin's client does: environment with
// the magic cookie and a client certificate, one handshake line on stdout, mTLS over the
// unix socket, then provider RPCs and the controller's Shutdown. Covers the process-level
// lessons: stdout stays clean, SIGINT is ignored, Shutdown exits promptly, the client
// certificate is required, and a person running it by hand gets a message.
import * as grpc from '@grpc/grpc-js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Script } from 'node:vm';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProtocol } from '../../src/plugin/grpc/plugin-server.js';
import { createServerCertificate } from '../../src/plugin/handshake/certificate.js';
import { PROVIDER_BUNDLE } from '../support/paths.js';
import { derToPem, PLUGIN_COOKIE, spawnPlugin, type SpawnedPlugin } from '../support/plugin-client.js';

const COOKIE = PLUGIN_COOKIE;
const startPlugin = (env: NodeJS.ProcessEnv, cwd: string): Promise<SpawnedPlugin> => spawnPlugin(env, cwd);

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

describe('the installed package', () => {
  it('holds the wrapper, the loader, the bundle and a V8 code cache that this Node accepts', () => {
    const mirror = mkdtempSync(path.join(tmpdir(), 'mirror-'));
    const out = spawnSync(process.execPath, [PROVIDER_BUNDLE, 'install', '--wrapper', '--mirror', mirror], { encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    const dir = path.join(mirror, 'registry.takoform.dev/takoform/takoform/0.2.0', `${process.platform}_${process.arch === 'x64' ? 'amd64' : process.arch}`);
    expect(readdirSync(dir).sort()).toEqual(['provider-main.cache', 'provider-main.cjs', 'provider.cjs', 'terraform-provider-takoform_v0.2.0']);
    const main = path.join(dir, 'provider-main.cjs');
    const source = readFileSync(main, 'utf8').replace(/^#!.*\n/, '');
    const script = new Script('(function (exports, require, module, __filename, __dirname) {' + source + '\n})', {
      filename: main,
      cachedData: readFileSync(path.join(dir, 'provider-main.cache')),
    });
    expect(script.cachedDataRejected).toBe(false);
    // The wrapper execs node (so core's SIGKILL reaches the provider itself) on the loader.
    expect(readFileSync(path.join(dir, 'terraform-provider-takoform_v0.2.0'), 'utf8')).toMatch(
      /^#!\/bin\/sh\n[\s\S]*exec node "\$here\/provider\.cjs" "\$@"\n$/,
    );
  });
});

describe('the plugin process', () => {
  it('refuses to run without the magic cookie, with a message on stderr only', () => {
    const r = spawnSync(process.execPath, [PROVIDER_BUNDLE], { env: { PATH: process.env.PATH }, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/This is a Terraform\/OpenTofu provider plugin/);
  });

  it('refuses a host that offers only protocol 5', () => {
    const r = spawnSync(process.execPath, [PROVIDER_BUNDLE], { env: { PATH: process.env.PATH, ...COOKIE, PLUGIN_PROTOCOL_VERSIONS: '5' }, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/protocol 6/);
  });

  it('reports a broken catalog as a schema diagnostic instead of dying before the handshake', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'plugin-proc-'));
    writeFileSync(path.join(cwd, '.takoform.lock.json'), '{"formatVersion": 1, "forms": [}');
    const p = await startPlugin({ ...COOKIE }, cwd);
    children.push(p.child);
    const [, , , address] = p.line.split('|');
    const proto = loadProtocol();
    const provider = new proto.tfplugin6.Provider(`unix://${address}`, grpc.credentials.createInsecure());
    const schema = await new Promise<any>((resolve, reject) => provider.GetProviderSchema({}, (err, res) => (err ? reject(err) : resolve(res))));
    expect(schema.diagnostics[0].severity).toBe('ERROR');
    expect(schema.diagnostics[0].summary).toBe('Cannot read the Form catalog');
    expect(schema.diagnostics[0].detail).toContain('.takoform.lock.json');
    provider.close();
  });

  it('reports an uncaught exception as a "panic:" so core shows it (G13)', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'plugin-proc-'));
    // Preload a module that throws from a timer once the plugin is serving.
    const thrower = path.join(cwd, 'throw-later.cjs');
    writeFileSync(thrower, "setTimeout(() => { throw new Error('boom from a timer'); }, 300);\n");
    const child = spawn(process.execPath, ['--require', thrower, PROVIDER_BUNDLE], {
      cwd,
      env: { PATH: process.env.PATH, ...COOKIE },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/^panic: Error: boom from a timer/m);
  });

  it('serves tfplugin6 over mTLS, ignores SIGINT, and exits promptly on Shutdown', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'plugin-proc-'));
    writeFileSync(path.join(cwd, '.takoform.lock.json'), JSON.stringify({ formatVersion: 1, forms: [] }));
    const clientCert = createServerCertificate();
    const p = await startPlugin({ ...COOKIE, PLUGIN_CLIENT_CERT: clientCert.certPem }, cwd);
    children.push(p.child);
    const [core, app, network, address, protocol, cert] = p.line.split('|');
    expect([core, app, network, protocol]).toEqual(['1', '6', 'unix', 'grpc']);
    expect(cert!.length).toBeGreaterThan(50);

    const proto = loadProtocol();
    const creds = grpc.credentials.createSsl(Buffer.from(derToPem(cert!)), Buffer.from(clientCert.keyPem), Buffer.from(clientCert.certPem));
    const options = { 'grpc.ssl_target_name_override': 'localhost', 'grpc.default_authority': 'localhost' };
    const provider = new proto.tfplugin6.Provider(`unix://${address}`, creds, options);
    const schema = await new Promise<any>((resolve, reject) => provider.GetProviderSchema({}, (err, res) => (err ? reject(err) : resolve(res))));
    expect(schema.provider.block.attributes.map((a: any) => a.name)).toEqual(['endpoint', 'token', 'space', 'ca_file']);
    expect(schema.provider.block.attributes.find((a: any) => a.name === 'token').sensitive).toBe(true);

    // An RPC we do not support answers a diagnostic, not a gRPC error.
    const eph = await new Promise<any>((resolve, reject) =>
      provider.OpenEphemeralResource({ type_name: 'x' }, (err, res) => (err ? reject(err) : resolve(res))),
    );
    expect(eph.diagnostics[0].summary).toBe('Unsupported operation');

    // Ctrl-C reaches the whole process group; the plugin must survive it (G17).
    p.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 200));
    expect(p.child.exitCode).toBeNull();

    // Without a client certificate the TLS handshake is refused.
    const anonymous = new proto.tfplugin6.Provider(`unix://${address}`, grpc.credentials.createSsl(Buffer.from(derToPem(cert!))), options);
    await expect(
      new Promise((resolve, reject) => anonymous.GetProviderSchema({}, { deadline: Date.now() + 3000 }, (err, res) => (err ? reject(err) : resolve(res)))),
    ).rejects.toThrow();
    anonymous.close();
    // Nor with a certificate other than the one core passed (its own valid key and all).
    const stranger = createServerCertificate();
    const impostor = new proto.tfplugin6.Provider(
      `unix://${address}`,
      grpc.credentials.createSsl(Buffer.from(derToPem(cert!)), Buffer.from(stranger.keyPem), Buffer.from(stranger.certPem)),
      options,
    );
    await expect(
      new Promise((resolve, reject) => impostor.GetProviderSchema({}, { deadline: Date.now() + 3000 }, (err, res) => (err ? reject(err) : resolve(res)))),
    ).rejects.toThrow();
    impostor.close();

    const started = Date.now();
    const controller = new proto.plugin.GRPCController(`unix://${address}`, creds, options);
    await new Promise<void>((resolve) => controller.Shutdown({}, () => resolve()));
    const code = await p.exited;
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(p.stdout()).toBe(`${p.line}\n`);
    provider.close();
    controller.close();
  });
});
