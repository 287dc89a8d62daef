import { loadConfig } from '../src/config/app-config.js';
import { parseExactJson, stringifyExactJson } from '../src/http/exact-json.js';
import { WEBHOOK_BODY_LIMIT } from '../src/common/body-parsers.js';

/**
 * The longest the daemon blocks its own event loop: the synchronous steps whose time grows with what it is sent,
 * each at the largest size the daemon accepts. A job's lock (`jobs.lockDurationMs`, 6 s; docs/guarantees.md) is renewed from
 * the event loop, so it must outlast the longest of these by a wide margin. PDFs and CSV imports are streamed (read in
 * chunks, each a short step), so they are not here.
 *
 * - an answer of a CRM or the service at `HTTP_MAX_JSON_BYTES` (10 MB by default), parsed keeping ids exact: with
 *   long ids in it (the worst case: parsed twice, the ids quoted between), and without;
 * - an admin's JSON body at Fastify's limit (5 MB) and a webhook delivery at its limit, parsed the same way;
 * - a 10 MB body written with exact ids (a request to a CRM).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const MB = 1024 * 1024;
const config = loadConfig({ DATABASE_URL: 'postgres://unused/unused', REDIS_URL: 'redis://unused:6379/0' });

/** A Zoho- or service-like list answer of about `bytes`, every record with ids beyond 2^53. */
function listAnswer(bytes: number): string {
  const records: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const record = `{"id":${36029621652695017n + BigInt(i)},"Owner":{"id":"4876876000000225013","name":"Pat Doe"},"Deal_Name":"Deal ${i}","Amount":${(i * 13.37).toFixed(2)},"Stage":"Qualification","Tags":["a","b"],"Modified_Time":"2026-11-27T10:00:00+00:00","Description":"${'x'.repeat(200)}"}`;
    records.push(record);
    size += record.length + 1;
  }
  return `{"data":[${records.join(',')}],"info":{"more_records":false}}`;
}

function worstMs(what: string, step: () => unknown): number {
  let worst = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    step();
    worst = Math.max(worst, Number(process.hrtime.bigint() - started) / 1e6);
  }
  console.log(`${what.padEnd(62)} ${worst.toFixed(0).padStart(6)} ms (the longest of ${ROUNDS})`);
  return worst;
}

const answer = listAnswer(config.http.maxJsonBytes);
const admin = listAnswer(5 * MB);
const delivery = listAnswer(WEBHOOK_BODY_LIMIT);
const parsed = parseExactJson(answer);
console.log(`\nthe daemon's longest synchronous steps, node ${process.version}`);
const worst = Math.max(
  worstMs(`a ${(answer.length / MB).toFixed(0)} MB answer, exact ids`, () => parseExactJson(answer)),
  worstMs(`a ${(answer.length / MB).toFixed(0)} MB answer, no long number (JSON.parse)`, () => parseExactJson(answer.replaceAll('360296', '1'))),
  worstMs(`a ${(admin.length / MB).toFixed(0)} MB admin body, exact ids`, () => parseExactJson(admin)),
  worstMs(`a ${(delivery.length / MB).toFixed(0)} MB webhook delivery, exact ids`, () => parseExactJson(delivery)),
  worstMs(`a ${(answer.length / MB).toFixed(0)} MB body written with exact ids`, () => stringifyExactJson(parsed)),
);
const lockMs = config.jobs.lockDurationMs;
console.log(`longest: ${worst.toFixed(0)} ms; the job lock lasts ${lockMs} ms, renewed every ${lockMs / 2} ms: a stall up to ${lockMs / 2} ms keeps it`);
