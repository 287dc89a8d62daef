import { createServer } from 'node:http';
import { verifySignature } from '../src/webhooks/signature.js';

/**
 * The ceiling `bench:webhooks` compares the daemon with: a minimal Node server that only verifies the signature of
 * each delivery. Run as a process of its own, like the daemon, so neither shares a core with the load generator.
 * Prints its port once it listens.
 */
const secret = process.env.BARE_SECRET ?? '';
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const ok = verifySignature(req.headers['service-signature'] as string | undefined, Buffer.concat(chunks), [secret], 300).ok;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end('{"status":"accepted"}');
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as { port: number }).port}`));
