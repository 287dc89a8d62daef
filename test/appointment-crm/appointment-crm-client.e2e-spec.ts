import { Logger } from '@nestjs/common';
import { Readable } from 'node:stream';
import { loadConfig } from '../../src/config/app-config.js';
import { MetricsService } from '../../src/observability/metrics.service.js';
import { OutboundError } from '../../src/http/outbound-error.js';
import { HttpAppointmentCrm } from '../../src/appointment-crm/adapters/rest/appointment-crm.client.js';
import type { Sale } from '../../src/appointment-crm/appointment-crm.js';
import { AppointmentCrmSim } from '../../sim/appointment-crm/appointment-crm-sim.js';
import { bareNumber, makePdf } from '../../sim/common/sim-server.js';
import { ServiceSim } from '../../sim/service/service-sim.js';
import { environmentConnections } from '../support/environment-connections.js';
import { baseEnv, fastRetries } from '../support/harness.js';

/** The appointment CRM adapter on its own against the simulator, over real HTTP: the third-wave requests. */
describe(HttpAppointmentCrm.name, () => {
  const sim = new AppointmentCrmSim();
  const service = new ServiceSim();
  let crm: HttpAppointmentCrm;
  const base = Date.parse('2026-11-02T08:00:00.000Z');
  const at = (seconds: number) => new Date(base + seconds * 1000);
  const idOf = (n: number) => `36029621652${String(700000 + n)}`; // beyond 2^53, all of one length

  beforeAll(async () => {
    Logger.overrideLogger(false);
    await Promise.all([sim.start(), service.start()]);
    const config = loadConfig({
      ...baseEnv(service, 'postgres://unused@127.0.0.1/x', 1),
      ...sim.daemonEnv(),
    });
    fastRetries(config);
    crm = new HttpAppointmentCrm(config, environmentConnections(config), new MetricsService());
  });
  beforeEach(() => {
    sim.appointments.clear();
    sim.clearFaults();
  });
  afterAll(() => Promise.all([sim.stop(), service.stop()]));

  async function everyPage(since: Date | null, limit: number): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await crm.listChangedAppointments(since, cursor, limit);
      ids.push(...page.items.map((a) => a.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor !== null && pages < 100);
    return { ids, pages };
  }

  describe('listChangedAppointments', () => {
    it('pages through more than a page of changes, oldest first, equal times by id, each once', async () => {
      // 12 appointments: four instants, three appointments each, added in an order unlike the answer's.
      for (const n of [11, 2, 7, 5, 0, 9, 3, 10, 1, 8, 4, 6]) sim.addAppointment(idOf(n), { updated_at: at(Math.floor(n / 3)).toISOString() });
      const { ids, pages } = await everyPage(null, 5);
      expect(ids).toEqual(Array.from({ length: 12 }, (_, n) => idOf(n)));
      expect(pages).toBe(3);
      const listings = sim.requestsTo('GET', '/appointments');
      expect(listings.map((r) => r.query.get('limit'))).toEqual(['5', '5', '5']);
      expect(listings[0].query.has('cursor')).toBe(false);
      expect(listings[0].query.has('updated_since')).toBe(false);
    });

    it('asks from updated_since, inclusive, and sees an edited appointment again at the end', async () => {
      for (let n = 0; n < 4; n++) sim.addAppointment(idOf(n), { updated_at: at(n).toISOString() });
      expect((await everyPage(at(2), 500)).ids).toEqual([idOf(2), idOf(3)]);
      expect(sim.requestsTo('GET', '/appointments').at(-1)!.query.get('updated_since')).toBe(at(2).toISOString());
      sim.editAppointment(idOf(0), { status: 'Sold' }, at(9));
      expect((await everyPage(at(2), 500)).ids).toEqual([idOf(2), idOf(3), idOf(0)]);
    });

    it('reads every field, exact ids, nulls and unknown fields alike', async () => {
      sim.addAppointment(idOf(1), {
        scheduled_at: '2026-12-01T15:00:00Z',
        ends_at: '2026-12-01T16:30:00Z',
        job_number: 'J-2041',
        updated_at: at(0).toISOString(),
        customer: {
          name: 'Ana Ruiz',
          email: 'ana@example.com',
          phone: '+1 512 555 0100',
          address: { street: '1 Main St', city: 'Austin', state: 'TX', zip_code: '78701', country: 'US' },
        },
        sales_rep: { name: 'Sam Ortiz', email: 'sam@example.com', phone: '+1 512 555 0199' },
      });
      sim.addAppointment(idOf(2), { updated_at: at(1).toISOString() });
      const [full, bare] = (await crm.listChangedAppointments(null, null, 10)).items;
      expect(full).toEqual({
        id: idOf(1),
        status: 'Scheduled',
        scheduled_at: '2026-12-01T15:00:00Z',
        ends_at: '2026-12-01T16:30:00Z',
        job_number: 'J-2041',
        updated_at: at(0).toISOString(),
        customer: {
          name: 'Ana Ruiz',
          email: 'ana@example.com',
          phone: '+1 512 555 0100',
          address: { street: '1 Main St', city: 'Austin', state: 'TX', zip_code: '78701', country: 'US' },
        },
        sales_rep: { name: 'Sam Ortiz', email: 'sam@example.com', phone: '+1 512 555 0199' },
        web_url: null,
      });
      expect(bare).toEqual({
        id: idOf(2),
        status: 'Scheduled',
        scheduled_at: null,
        ends_at: null,
        job_number: null,
        updated_at: at(1).toISOString(),
        customer: null,
        sales_rep: null,
        web_url: null,
      });
    });

    it('reads a CRM of its own making: bare integer ids, fields missing or extra, the draft names', async () => {
      sim.injectFault({
        method: 'GET',
        path: '/appointments',
        times: 1,
        status: 200,
        body: {
          items: [
            {
              id: bareNumber('36029621652700099'),
              status: 'Open',
              extra: { x: 1 },
              scheduled_at: '2026-12-02T09:00:00Z',
              customer: { name: 'Bo', address: { zip_code: 73301 } },
            },
          ],
          next_cursor: '',
          more: true,
        },
      });
      expect(await crm.listChangedAppointments(null, null, 1)).toEqual({
        items: [
          {
            id: '36029621652700099',
            status: 'Open',
            scheduled_at: '2026-12-02T09:00:00Z',
            ends_at: null,
            job_number: null,
            updated_at: null,
            customer: { name: 'Bo', email: null, phone: null, address: { street: null, city: null, state: null, zip_code: '73301', country: null } },
            sales_rep: null,
            web_url: null,
          },
        ],
        next_cursor: null,
      });
    });

    it('fails an answer without items, or an item without id, as invalid', async () => {
      sim.injectFault({ method: 'GET', path: '/appointments', times: 1, status: 200, body: [{ id: '1' }] });
      sim.injectFault({ method: 'GET', path: '/appointments', times: 1, status: 200, body: { items: [{ status: 'Open' }], next_cursor: null } });
      for (const message of ['expected { items, next_cursor }', 'an appointment has no id']) {
        const err = await crm.listChangedAppointments(null, null, 10).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(OutboundError);
        expect(err).toMatchObject({ failure: 'invalid_response', message: expect.stringContaining(message) });
      }
    });
  });

  describe('searchAppointments', () => {
    beforeEach(() => {
      sim.addAppointment(idOf(1), {
        job_number: 'J-1',
        updated_at: at(1).toISOString(),
        customer: { name: 'Ana Ruiz', email: 'Ana@Example.com', phone: '(512) 555-0100', address: null },
      });
      sim.addAppointment(idOf(2), {
        job_number: 'J-10',
        updated_at: at(2).toISOString(),
        customer: { name: 'Bo Lee', email: 'bo@example.com', phone: null, address: null },
      });
    });

    it('finds by free text, most recently changed first', async () => {
      expect((await crm.searchAppointments({ q: 'j-1' })).map((a) => a.id)).toEqual([idOf(2), idOf(1)]);
      expect((await crm.searchAppointments({ q: 'ruiz' })).map((a) => a.customer?.name)).toEqual(['Ana Ruiz']);
      expect(sim.requestsTo('GET', '/appointments').at(-1)!.query.get('q')).toBe('ruiz');
    });

    it('finds by exact job number, e-mail and phone; nothing is an empty list', async () => {
      expect((await crm.searchAppointments({ job_number: 'J-1' })).map((a) => a.id)).toEqual([idOf(1)]);
      expect((await crm.searchAppointments({ email: 'ana@example.com' })).map((a) => a.id)).toEqual([idOf(1)]);
      expect((await crm.searchAppointments({ phone: '512.555.0100' })).map((a) => a.id)).toEqual([idOf(1)]);
      expect(await crm.searchAppointments({ job_number: 'J-404' })).toEqual([]);
    });
  });

  describe('Idempotency-Key', () => {
    const sale: Sale = {
      items: [],
      subtotal: 0,
      discount: 0,
      discount_description: '',
      markup: 0,
      markup_description: '',
      taxes: [],
      total: 0,
      drawing_id: '36029621652695088',
      drawing_version_id: '36029621652695090',
    };

    it('sends the same key on every try of a write retried after a 5xx', async () => {
      sim.addAppointment(idOf(1));
      const path = `/appointments/${idOf(1)}/sale`;
      sim.injectFault({ method: 'PUT', path, status: 503, times: 2 });
      await crm.putSale(idOf(1), sale, 'crm-sync:77:sale');
      const puts = sim.requestsTo('PUT', path);
      expect(puts).toHaveLength(3);
      expect(puts.map((r) => r.headers['idempotency-key'])).toEqual(['crm-sync:77:sale', 'crm-sync:77:sale', 'crm-sync:77:sale']);
      expect(sim.get(idOf(1))!.sale).toMatchObject({ drawing_id: '36029621652695088' });
    });

    it('gets the first answer again when a write was applied and its answer lost', async () => {
      sim.addAppointment(idOf(1));
      const path = `/appointments/${idOf(1)}`;
      sim.injectFault({ method: 'PATCH', path, times: 1, afterHandling: true, dropConnection: true });
      await crm.setStatus(idOf(1), 'Sold', 'crm-sync:78:status');
      expect(sim.keyedWrites.filter((w) => w.key === 'crm-sync:78:status')).toEqual([
        { key: 'crm-sync:78:status', method: 'PATCH', path, replayed: false },
        { key: 'crm-sync:78:status', method: 'PATCH', path, replayed: true },
      ]);
      expect(sim.get(idOf(1))!.status).toBe('Sold');
    });

    it('is on every write: upload, delete, note', async () => {
      sim.addAppointment(idOf(1));
      const [writesBefore, requestsBefore] = [sim.keyedWrites.length, sim.requests.length];
      const pdf = makePdf('plan');
      const upload = { stream: Readable.from([pdf]), fileName: 'Plan ü.pdf', size: pdf.length };
      const file = await crm.uploadFile(idOf(1), 'drawing', upload, 'crm-sync:79:run-1:upload-drawing:1:Plan%20%C3%BC.pdf');
      await crm.deleteFile(idOf(1), file.id, `crm-sync:79:delete:${file.id}`);
      await crm.addNote(idOf(1), 'Paid 1', 'crm-sync:80:note');
      expect(sim.keyedWrites.slice(writesBefore).map((w) => [w.method, w.key])).toEqual([
        ['POST', 'crm-sync:79:run-1:upload-drawing:1:Plan%20%C3%BC.pdf'],
        ['DELETE', `crm-sync:79:delete:${file.id}`],
        ['POST', 'crm-sync:80:note'],
      ]);
      expect(sim.requests.slice(requestsBefore).filter((r) => r.method !== 'GET')).toHaveLength(3);
    });
  });

  describe('listNotes', () => {
    it('lists the notes, and answers null for a CRM without the listing', async () => {
      sim.addAppointment(idOf(1), { notes: [{ id: '88', text: 'Paid 1', created_at: at(0).toISOString() }] });
      expect(await crm.listNotes(idOf(1))).toEqual([{ id: '88', text: 'Paid 1', created_at: at(0).toISOString() }]);
      sim.listsNotes = false;
      try {
        expect(await crm.listNotes(idOf(1))).toBeNull();
      } finally {
        sim.listsNotes = true;
      }
    });
  });
});
