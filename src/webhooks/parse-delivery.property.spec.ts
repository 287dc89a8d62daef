import 'reflect-metadata';
import fc from 'fast-check';
import { KNOWN_EVENTS } from '../domain/service-events.js';
import { parseDelivery, type ParsedDelivery } from './parse-delivery.js';
import { WEBHOOK_ENDPOINTS, type WebhookEndpoint } from './inbox.row.js';

const runs = { numRuns: 300, interruptAfterTimeLimit: 5000 };
const endpoint = fc.constantFrom<WebhookEndpoint>(...WEBHOOK_ENDPOINTS);
const bigId = fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String);

/** Values the payload DTOs care about, so that random payloads come near valid ones as well as far from them. */
const field = fc.oneof(
  fc.constantFrom(null, '', 'x', '12', 0, 1.5, true, false, [], ['a'], {}, 'APPROVED', 'web', 'service_payment', 'mark_as_paid', 'Deals'),
  fc.jsonValue({ maxDepth: 2 }),
);
const names = ['id', 'project_id', 'drawing_id', 'proposal_id', 'appointment_id', 'name', 'tags', 'yes_no', 'module', 'record_id', 'data', 'event', 'status'];
const names2 = [
  ...names,
  'record_crm_module',
  'record_crm_record_id',
  'pay_channel',
  'paid_amount',
  'paid_time',
  'approved_option',
  'proposal_options',
  '__proto__',
];
const payload = fc.dictionary(fc.oneof(fc.constantFrom(...names2), fc.string({ maxLength: 5 })), field, { maxKeys: 8, noNullPrototype: true });
const event = fc.oneof(
  fc.constantFrom<unknown>(...KNOWN_EVENTS, 'appointment_crm.export_prompt', '', 'nope', 'toString', '__proto__', 'constructor'),
  fc.jsonValue({ maxDepth: 1 }),
);
const body = fc.oneof(fc.record({ event, data: fc.oneof(payload, field) }, { requiredKeys: [] }), payload, fc.jsonValue());

const VALID_EVENTS: string[] = [...KNOWN_EVENTS, 'appointment_crm.export_prompt', 'record_crm.export_prompt'];

/** The delivery's text: JSON.stringify, with big ids written as bare numbers where the test puts `"<digits>"n`. */
const text = (value: unknown) => Buffer.from(JSON.stringify(value).replace(/"(\d+)n"/g, '$1'));

function expectAnswer(parsed: ParsedDelivery): void {
  expect(['valid', 'unknown', 'invalid']).toContain(parsed.kind);
  if (parsed.kind === 'invalid') expect(parsed.reason).toMatch(/\S/);
  if (parsed.kind === 'unknown') expect(typeof parsed.event).toBe('string');
  if (parsed.kind === 'valid') expect(VALID_EVENTS).toContain(parsed.event);
}

describe('parseDelivery (properties)', () => {
  it('answers any JSON delivery at any endpoint with valid, unknown or invalid and a reason, never an exception', () => {
    fc.assert(
      fc.property(endpoint, body, (at, value) => expectAnswer(parseDelivery(at, text(value)))),
      // Found by this property: an event named after a property of Object.prototype was taken as a valid event.
      {
        ...runs,
        examples: [
          ['events', { event: 'toString', data: {} }],
          ['events', { event: 'constructor', data: {} }],
          ['events', { event: '__proto__', data: {} }],
        ],
      },
    );
  });

  it('answers any bytes, and JSON cut or spliced anywhere, as invalid', () => {
    const spliced = fc.tuple(body, fc.nat(), fc.string({ maxLength: 3 })).map(([value, at, junk]) => {
      const json = JSON.stringify(value);
      const i = at % (json.length + 1);
      return Buffer.from(json.slice(0, i) + junk + json.slice(i));
    });
    fc.assert(
      fc.property(
        endpoint,
        fc.oneof(
          fc.uint8Array().map((b) => Buffer.from(b)),
          spliced,
        ),
        (at, raw) => expectAnswer(parseDelivery(at, raw)),
      ),
      runs,
    );
  });

  it('keeps ids beyond 2^53, sent as bare numbers, as their exact digits', () => {
    fc.assert(
      fc.property(bigId, bigId, bigId, (project, drawing, record) => {
        const created = parseDelivery('events', text({ event: 'project.created', data: { id: `${project}n`, name: 'P', tags: [] } }));
        expect(created).toMatchObject({ kind: 'valid', data: { id: project } });
        const drawn = parseDelivery(
          'events',
          text({ event: 'drawing.updated', data: { id: `${drawing}n`, project_id: `${project}n`, name: 'D', pdf_url: 'u', png_url: 'v', tags: [] } }),
        );
        expect(drawn).toMatchObject({ kind: 'valid', data: { id: drawing, project_id: project } });
        const prompt = parseDelivery('record-prompt', text({ drawing_id: `${drawing}n`, module: 'Deals', record_id: `${record}n`, yes_no: true }));
        expect(prompt).toMatchObject({ kind: 'valid', data: { drawing_id: drawing, record_crm_record_id: record } });
        const appointment = parseDelivery(
          'appointment-prompt',
          text({ data: { project_id: `${project}n`, drawing_id: `${drawing}n`, appointment_id: `${record}n`, yes_no: false } }),
        );
        expect(appointment).toMatchObject({ kind: 'valid', data: { project_id: project, appointment_id: record } });
      }),
      runs,
    );
  });
});
