import autocannon from 'autocannon';
import pg from 'pg';
import { createServer } from 'node:http';
import { signWebhook } from '../test/sim/service/webhook-sender.js';
import { ServiceSim } from '../test/sim/service/service-sim.js';
import { baseEnv, flushRedisDb, uniqueDatabaseUrl } from '../test/support/harness.js';
import { dropDatabase } from '../src/database/ensure-database.js';
import { verifySignature } from '../src/webhooks/signature.js';
import { startDaemon } from './support.js';

/**
 * Signed deliveries at the daemon's events webhook (each body unique, so each is accepted and stored), next to the
 * same load on a bare Node server that only verifies the signature: the ceiling of this machine.
 */
const SECRET = 'bench-secret';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const REDIS_DB = 15;

let counter = 0;
function setupRequest(request: { body?: string; headers?: Record<string, string> }) {
  counter++;
  const body = `{"event":"project.updated","data":{"id":"${36029621652695017n + BigInt(counter)}","name":"Bench ${counter}","tags":[],"source":"web"}}`;
  return { ...request, body, headers: { 'content-type': 'application/json', 'service-signature': signWebhook(SECRET, body) } };
}

async function load(url: string) {
  const result = await autocannon({ url, method: 'POST', connections: CONNECTIONS, duration: DURATION, requests: [{ setupRequest }] as never });
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

async function bareVerifier() {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const ok = verifySignature(req.headers['service-signature'] as string, Buffer.concat(chunks), [SECRET], 300).ok;
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end('{"status":"accepted"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const figures = await load(`http://127.0.0.1:${port}/`);
  server.close();
  return figures;
}

async function daemon() {
  const service = new ServiceSim();
  await service.start();
  await flushRedisDb(REDIS_DB);
  const databaseUrl = uniqueDatabaseUrl();
  const env = { ...baseEnv(service, databaseUrl, REDIS_DB), WEBHOOK_SECRETS_EVENTS: SECRET, LOG_LEVEL: 'warn' };
  const d = await startDaemon(env);
  try {
    const figures = await load(`${d.url}/webhooks/events`);
    return { ...figures, unrouted: await unroutedDeliveries(databaseUrl) };
  } finally {
    await d.stop();
    await service.stop();
    await dropDatabase(databaseUrl);
  }
}

/** Stored deliveries not yet routed when the load ends: shows whether routing kept pace with intake. */
async function unroutedDeliveries(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'received'`);
    return rows[0].n as number;
  } finally {
    await client.end();
  }
}

const bare = await bareVerifier();
const full = await daemon();
const row = (name: string, f: typeof bare) => `${name.padEnd(22)} ${String(f.rps).padStart(8)} req/s   p50 ${f.p50} ms   p99 ${f.p99} ms   non-2xx ${f.non2xx}   errors ${f.errors}`;
console.log(`\nwebhook intake, ${CONNECTIONS} connections, ${DURATION} s each, loopback`);
console.log(row('bare signature check', bare));
console.log(row('crm-sync (stored)', full));
console.log(`stored but not yet routed when the load ended: ${full.unrouted}`);
console.log(`ratio: ${(full.rps / bare.rps).toFixed(2)} of the bare verifier's requests/s`);
