import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { events, recordPrompt, WebhookSender } from '../../sim/service/index.js';
import { terminateHolderWhileAnotherWaits } from '../support/advisory-locks.js';
import { EVENTS_SECRET, RECORD_PROMPT_SECRET, startHarness, waitFor, type Harness } from '../support/harness.js';
import { syncLogEntries } from '../support/tables.js';
import { dealReadyForQuotes } from '../support/zoho-records.js';

const TIMEOUT_MS = 3_000;
const sender = new WebhookSender();

/**
 * A Quote's create cannot be called back once sent. When the run that sent it loses its lock before the answer, and
 * Zoho applies the create after that run gave up waiting, the next holder of the lock must find that Quote, not make
 * a second one (docs/guarantees.md, "When a lock is lost").
 */
describe("a lock lost while a Quote's create is unanswered", () => {
  let h: Harness;
  let db: pg.Client;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 12, recordCrm: true, tune: (config) => (config.http.timeoutMs = TIMEOUT_MS) });
    h.service.addTemplate('Standard');
    db = new pg.Client({ connectionString: h.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await h.close();
  });

  it('the next push waits until the create would have landed, finds its Quote, and the Deal has one Quote', async () => {
    const { projectId, drawingId, dealId } = await dealReadyForQuotes(h, '4150868000000000778');

    // The first push's create reaches Zoho, which applies it only when released: after that push stopped waiting.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    h.zoho!.api.injectFault({ method: 'POST', path: /^\/crm\/v8\/Quotes$/, times: 1, until: held });
    try {
      const prompt = recordPrompt({ drawing_id: drawingId, record_crm_module: 'Deals', record_crm_record_id: dealId, yes_no: true });
      expect((await sender.deliverOnce(`${h.url}/webhooks/record-crm/export-prompt`, prompt, { secret: RECORD_PROMPT_SECRET })).status).toBe(200);
      const create = await waitFor(() => h.zoho!.api.requestsTo('POST', /\/Quotes$/)[0], 20_000, "the first push's create");

      // A second push of the same Quote (its proposal approved) waits for the lock; the first one's lock is lost.
      const proposal = h.service.addProposal({ project_id: projectId, status: 'APPROVED', approved_option: { drawing_id: drawingId } });
      expect((await sender.deliverOnce(`${h.url}/webhooks/events`, events.proposalStatusChanged(proposal), { secret: EVENTS_SECRET })).status).toBe(200);
      expect(await terminateHolderWhileAnotherWaits(db, `zoho-quote:${dealId}:${drawingId}`)).toBe(true);

      // Zoho applies the create a second after the first push's time-out, within twice the time-out of its sending.
      await sleep(Math.max(0, create.at + TIMEOUT_MS + 1_000 - Date.now()));
    } finally {
      release();
    }

    const pushes = await waitFor(
      async () => {
        const found = await syncLogEntries(h, { kind: 'push_quote', target: `Deals/${dealId}` });
        return found.length === 2 && found.every((e) => ['succeeded', 'failed'].includes(e.status)) ? found : null;
      },
      60_000,
      'both pushes finished',
    );
    expect(pushes.map((e) => e.status)).toEqual(['succeeded', 'succeeded']);
    expect(h.zoho!.revenue.quotesOfDeal(dealId)).toHaveLength(1);
    expect(h.zoho!.api.requestsTo('POST', /\/Quotes$/)).toHaveLength(1);
  }, 120_000);
});
