// The plugin's own gRPC server (src/plugin/grpc/h2-server.ts) as a grpc-js client sees it,
// over plaintext HTTP/2 (core without TLS: TF_DISABLE_PLUGIN_TLS): unary, server-streaming,
// client-streaming and an unimplemented bidi method, the health service, a request above
// grpc-js's 4 MiB default, and Shutdown. plugin-process.test.ts covers the mTLS path.
import * as grpc from '@grpc/grpc-js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { loadProtocol } from '../../../src/plugin/grpc/plugin-server.js';
import { PLUGIN_COOKIE, spawnPlugin } from '../../support/plugin-client.js';

it('serves every call shape over plaintext HTTP/2 and exits on Shutdown', async () => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'plugin-insecure-'));
  writeFileSync(path.join(cwd, '.takoform.lock.json'), JSON.stringify({ formatVersion: 1, forms: [] }));
  const p = await spawnPlugin({ ...PLUGIN_COOKIE }, cwd);
  const [, , network, address, , cert] = p.line.split('|');
  expect(network).toBe('unix');
  expect(cert).toBe('');
  const proto = loadProtocol();
  const provider = new proto.tfplugin6.Provider(`unix://${address}`, grpc.credentials.createInsecure());
  const schema = await new Promise<any>((resolve, reject) => provider.GetProviderSchema({}, (err, res) => (err ? reject(err) : resolve(res))));
  expect(schema.provider.block.attributes.length).toBeGreaterThan(2);
  // Server streaming: ListResource answers one message and ends.
  const msgs: any[] = [];
  await new Promise<void>((resolve, reject) => {
    const s = (provider as any).ListResource({ type_name: 'x' });
    s.on('data', (m: unknown) => msgs.push(m));
    s.on('end', () => resolve());
    s.on('error', reject);
  });
  expect(msgs.length).toBe(1);
  // Client streaming: WriteStateBytes drains the stream and answers once.
  const w = await new Promise<any>((resolve, reject) => {
    const s = (provider as any).WriteStateBytes((err: unknown, res: unknown) => (err ? reject(err) : resolve(res)));
    s.write({ bytes: Buffer.from('x') });
    s.end();
  });
  expect(w.diagnostics[0].summary).toBe('Unsupported operation');
  // Bidirectional GRPCBroker is not implemented: UNIMPLEMENTED, not a hang.
  const broker = new (proto as any).plugin.GRPCBroker(`unix://${address}`, grpc.credentials.createInsecure());
  const err = await new Promise<any>((resolve) => {
    const s = broker.StartStream();
    s.on('error', resolve);
    s.on('data', () => undefined);
  });
  expect(err.code).toBe(grpc.status.UNIMPLEMENTED);
  // Health.
  const health = new (proto as any).grpc.health.v1.Health(`unix://${address}`, grpc.credentials.createInsecure());
  const h = await new Promise<any>((resolve, reject) => health.Check({}, (e: unknown, r: unknown) => (e ? reject(e) : resolve(r))));
  expect(h.status).toBe('SERVING');
  // A request above grpc-js's 4 MiB default goes through (core may send large states).
  const big = await new Promise<any>((resolve, reject) =>
    provider.ValidateResourceConfig({ type_name: 'nope', config: { msgpack: Buffer.alloc(5 << 20, 0xc0) } } as any, (e: unknown, r: unknown) =>
      e ? reject(e) : resolve(r),
    ),
  );
  expect(big.diagnostics.length).toBe(1);
  const controller = new proto.plugin.GRPCController(`unix://${address}`, grpc.credentials.createInsecure());
  await new Promise<void>((resolve) => controller.Shutdown({}, () => resolve()));
  expect(await p.exited).toBe(0);
  for (const c of [provider, controller, broker, health]) c.close();
});
