// A static file server over HTTPS on loopback, with a certificate signed by a throwaway CA
// made by openssl for this run: what a provider network mirror looks like to tofu/terraform.
// The CA is trusted only through the environment of the CLI under test (SSL_CERT_FILE, which
// Go programs read on Linux), never through the machine's store.
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface TestCa {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/** A CA and a server certificate for localhost / 127.0.0.1 signed by it. */
export function makeTestCa(dir: string): TestCa {
  mkdirSync(dir, { recursive: true });
  const f = (n: string) => path.join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=takoform test mirror CA',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
  );
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=localhost', '-keyout', f('server.key'), '-out', f('server.csr'));
  writeFileSync(f('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n');
  ssl(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    f('server.ext'),
    '-out',
    f('server.pem'),
  );
  return { caFile: f('ca.pem'), certFile: f('server.pem'), keyFile: f('server.key') };
}

export interface StaticServer {
  readonly url: string;
  /** Request paths served so far, in order, with their status. */
  readonly requests: Array<{ path: string; status: number }>;
  close(): Promise<void>;
}

export async function serveStatic(root: string, ca: TestCa): Promise<StaticServer> {
  const requests: Array<{ path: string; status: number }> = [];
  const server: Server = createServer({ cert: readFileSync(ca.certFile), key: readFileSync(ca.keyFile) }, (req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'https://localhost').pathname);
    const file = path.join(root, path.normalize(urlPath));
    const ok = req.method === 'GET' && file.startsWith(root + path.sep) && existsSync(file) && statSync(file).isFile();
    requests.push({ path: urlPath, status: ok ? 200 : 404 });
    if (!ok) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const type = file.endsWith('.json') ? 'application/json' : file.endsWith('.zip') ? 'application/zip' : 'application/octet-stream';
    res.writeHead(200, { 'content-type': type, 'content-length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}/`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
