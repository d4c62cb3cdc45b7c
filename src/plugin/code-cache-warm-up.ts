// Run only while `install` trains the V8 code cache (TAKOFORM_CODE_CACHE_TRAINING=1, see
// scripts/provider-loader.cjs), just before the handshake line ends the training. A function
// lands in the cache only if it was compiled during training, and the code a launch runs
// after its handshake was not: the Host client's transport (node:http's client, I-JSON) and
// ajv (the offline validation) are loaded on first use, so every launch that talks to the Host
// or validates a configuration compiled them from source again. Here they run once, against
// nothing real — a request to a loopback server of this process and a validation of a sample
// schema — so their functions are compiled and kept in the cache. Nothing here changes what a launch does.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transport } from '../host-client/transport.js';
import { ConfigValidator } from './schema/config-validation.js';

export async function warmUpForCodeCache(): Promise<void> {
  // A failed warm-up only leaves those functions out of the cache; it must not fail install.
  await Promise.all([requestOverLoopback(), validateSample()]).catch(() => undefined);
}

/** One GET and one POST through the Host client's transport (connection pool, I-JSON). */
async function requestOverLoopback(): Promise<void> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'warm-up' });
    res.end('{"apiVersion":"forms.takoform.com/v1","items":[{"name":"a","n":1,"ok":true}]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const transport = new Transport({
    origin: new URL(`http://127.0.0.1:${port}`),
    token: 'code-cache-warm-up',
    userAgent: 'terraform-provider-takoform (code cache warm-up)',
    connections: 1,
    headersTimeoutMs: 5_000,
    bodyTimeoutMs: 5_000,
    maxResponseBytes: 1 << 20,
    maxAttempts: 1,
  });
  try {
    await transport.send({ route: 'warm-up', method: 'GET', path: '/warm-up', safeToRetry: true });
    await transport.send({ route: 'warm-up', method: 'POST', path: '/warm-up', body: '{"spec":{}}', safeToRetry: true });
  } finally {
    await transport.close();
    server.close();
  }
}

/** Compiles and runs a schema with the keywords Form schemas use, valid and invalid input. */
async function validateSample(): Promise<void> {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    additionalProperties: false,
    required: ['lower'],
    properties: {
      lower: { type: 'integer', minimum: 0, maximum: 100 },
      mode: { type: 'string', enum: ['safe', 'fast'], default: 'safe' },
      label: { type: 'string', pattern: '^[a-z]+$', minLength: 1, maxLength: 8 },
      ratio: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.5 },
      on: { type: 'boolean', default: true },
      tags: { type: 'array', maxItems: 4, uniqueItems: true, items: { type: 'string' } },
      ref: { type: 'object', additionalProperties: false, properties: { kind: { const: 'x' }, name: { type: 'string' } }, required: ['name'] },
      extra: { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1 },
      either: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    },
  };
  const validator = new ConfigValidator('warm_up', schema, []);
  await validator.validateDocument({ lower: 1, mode: 'fast', label: 'ab', ratio: 1.5, tags: ['a'], ref: { kind: 'x', name: 'n' }, either: 1 }, () => []);
  await validator.validateDocument({ lower: -1, mode: 'slow', label: 'A', ratio: 0.3, tags: ['a', 'a'], ref: {}, extra: {}, either: true, nope: 1 }, () => []);
}
