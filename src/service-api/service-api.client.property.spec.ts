import fc from 'fast-check';
import { parseExactJson } from '../http/exact-json.js';
import { OutboundError } from '../http/outbound-error.js';
import type { OutboundHttp } from '../http/outbound-http.js';
import type { AppConfig } from '../config/app-config.js';
import type { ConnectionsService } from '../connections/connections.service.js';
import type { MetricsService } from '../observability/metrics.service.js';
import type { SharedRedisService } from '../queues/shared-redis.service.js';
import { ServiceApiClient } from './service-api.client.js';

const runs = { numRuns: 200, interruptAfterTimeLimit: 4000 };
const config = {
  service: { maxRps: 1_000_000 },
  downloads: { allowPrivateAddresses: false, deadlineMs: 1000 },
  http: { timeoutMs: 1000, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxInlineRetryAfterMs: 1 } },
};

/** A client whose service answers every call with `data` (what OutboundHttp parsed from the body). */
function clientAnswering(data: unknown): ServiceApiClient {
  const client = new ServiceApiClient(
    config as unknown as AppConfig,
    {} as ConnectionsService,
    {} as MetricsService,
    { key: () => 'unused', client: { crmSyncReserveSlot: () => 0 } } as unknown as SharedRedisService,
  );
  const http = { request: () => Promise.resolve({ status: 200, data, headers: {} }) } as unknown as OutboundHttp;
  Object.assign(client, { api: () => Promise.resolve(http) });
  return client;
}

const lists = (client: ServiceApiClient) => [
  () => client.listProjects(),
  () => client.listDrawings('1'),
  () => client.listProducts(),
  () => client.listProposalTemplates(),
  () => client.listProposals(),
  () => client.listPayments('2'),
];

describe('ServiceApiClient list answers (properties)', () => {
  it('answers every list endpoint with the list, ids as strings, or an invalid_response OutboundError for anything else', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.jsonValue(), fc.array(fc.dictionary(fc.constantFrom('id', 'project_id', 'name'), fc.jsonValue({ maxDepth: 1 })))),
        async (data) => {
          for (const list of lists(clientAnswering(data))) {
            let items: unknown[];
            try {
              items = await list();
            } catch (err) {
              expect(err).toBeInstanceOf(OutboundError);
              expect(err).toMatchObject({ failure: 'invalid_response', excerpt: 'expected a list' });
              expect(Array.isArray(data)).toBe(false);
              continue;
            }
            expect(Array.isArray(items)).toBe(true);
            expect(items.length).toBe((data as unknown[]).length);
            for (const item of items) {
              const id = (item as { id?: unknown } | null)?.id;
              if (typeof id === 'number') expect(Number.isInteger(id)).toBe(false);
            }
          }
        },
      ),
      runs,
    );
  });

  it('keeps ids of any size in a list answer digit for digit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.bigInt({ min: 0n, max: 10n ** 30n }), { maxLength: 5 }), async (ids) => {
        const data = parseExactJson(`[${ids.map((id) => `{"id":${id},"project_id":${id}}`).join(',')}]`);
        const projects = await clientAnswering(data).listProjects();
        expect(projects.map((p) => [p.id, (p as unknown as { project_id: string }).project_id])).toEqual(ids.map((id) => [String(id), String(id)]));
      }),
      runs,
    );
  });

  it('reads any A2 answer as the pairs it names (ids exact) or an invalid_response OutboundError, never a crash', async () => {
    const id = fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.jsonValue({ maxDepth: 1 }));
    const item = fc.oneof(
      fc.record({ appointment_id: id, project_id: id }, { requiredKeys: [] }),
      fc.record(
        { data: fc.record({ appointment_id: id, project_id: id }, { requiredKeys: [] }), message: fc.jsonValue({ maxDepth: 0 }) },
        { requiredKeys: [] },
      ),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const answer = fc.oneof(
      fc.record({ success_items: fc.oneof(fc.array(item), fc.jsonValue()), fail_items: fc.oneof(fc.array(item), fc.jsonValue()) }, { requiredKeys: [] }),
      fc.jsonValue(),
    );
    await fc.assert(
      fc.asyncProperty(answer, async (data) => {
        let result;
        try {
          result = await clientAnswering(data).batchAssociateAppointments([{ appointment_id: 'APT-1', project_id: '1' }]);
        } catch (err) {
          expect(err).toBeInstanceOf(OutboundError);
          expect(err).toMatchObject({ failure: 'invalid_response' });
          return;
        }
        const body = data as { success_items?: unknown; fail_items?: unknown };
        expect(Array.isArray(body.success_items ?? [])).toBe(true);
        expect(result.successItems.length).toBeLessThanOrEqual(((body.success_items as unknown[] | undefined) ?? []).length);
        for (const pair of [...result.successItems, ...result.failItems]) {
          expect(typeof pair.appointment_id).toBe('string');
          expect(typeof pair.project_id).toBe('string');
          expect(pair.appointment_id).not.toBe('');
        }
        for (const failed of result.failItems) expect(typeof failed.message).toBe('string');
      }),
      runs,
    );
  });

  it('keeps A2 ids of any size digit for digit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.bigInt({ min: 0n, max: 10n ** 30n }), async (appointment, project) => {
        const data = parseExactJson(`{"success_items":[{"appointment_id":${appointment},"project_id":${project}}],"fail_items":[]}`);
        const result = await clientAnswering(data).batchAssociateAppointments([]);
        expect(result.successItems).toEqual([{ appointment_id: String(appointment), project_id: String(project) }]);
      }),
      runs,
    );
  });

  it('reads any A3 answer as a connected product id, none, or an invalid_response OutboundError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.record({ connected_product_id: fc.jsonValue({ maxDepth: 1 }) }), fc.jsonValue()), async (data) => {
        let connected: string | null;
        try {
          connected = await clientAnswering(data).getConnectedProduct('7');
        } catch (err) {
          expect(err).toBeInstanceOf(OutboundError);
          expect(err).toMatchObject({ failure: 'invalid_response' });
          return;
        }
        expect(connected === null || (typeof connected === 'string' && connected !== '')).toBe(true);
      }),
      runs,
    );
  });
});
