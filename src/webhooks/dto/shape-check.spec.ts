import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { IsDefined, IsOptional, IsString, validateSync, ValidateNested } from 'class-validator';
import { AppointmentPromptDto, EVENT_DTOS, RecordPromptDto } from './event-dtos.js';
import { Nested, shapeCheck } from './shape-check.js';

type Plain = Record<string, unknown>;
type Dto = new () => object;

const option = { id: '11', name: 'Option A', drawing_id: '21', drawing_version_id: '31', total: 1200.5, pdf_url: 'https://files/o.pdf' };
const parties = { project_id: '1', proposal_id: '2', name: 'Proposal', customer_name: 'Ada', contact_email: 'a@x', sales_representative: 'Bo' };
const viewed = { ...parties, viewed_at: '2026-11-20T10:00:00Z', status: 'PENDING', customer_email: 'a@x' };

/** One valid payload per DTO, as the service sends it (ids already normalised to strings). */
const VALID: Array<[string, Dto, Plain]> = [
  ['project.created', EVENT_DTOS['project.created'], { id: '36029621652695017', name: 'P', tags: ['a'], customer: { name: 'Ada' }, job_number: 'J1' }],
  ['project.updated', EVENT_DTOS['project.updated'], { id: '1', name: 'P', tags: [], source: 'web' }],
  ['drawing.created', EVENT_DTOS['drawing.created'], { id: '3', project_id: '1', name: 'D', pdf_url: 'u', png_url: 'v', tags: [] }],
  ['proposal.signed', EVENT_DTOS['proposal.signed'], { project_id: '1', name: 'S', url: 'u', drawing_id: '3', drawing_version_id: '4' }],
  ['proposal.sent', EVENT_DTOS['proposal.sent'], { ...parties, proposal_options: [option, { ...option, id: '12' }] }],
  ['proposal.approved', EVENT_DTOS['proposal.approved'], { ...parties, approved_option: { name: 'A', drawing_id: '21', total: 3, pdf_url: 'u' } }],
  [
    'proposal.status_changed',
    EVENT_DTOS['proposal.status_changed'],
    { ...viewed, status: 'APPROVED', total: 5, approved_option: { id: '11', drawing_id: '21' }, proposal_options: [option] },
  ],
  ['proposal.viewed', EVENT_DTOS['proposal.viewed'], viewed],
  [
    'proposal.payment.received',
    EVENT_DTOS['proposal.payment.received'],
    { proposal_id: '2', drawing_id: '3', paid_amount: 120.5, pay_channel: 'service_payment', paid_time: 't', payment_method: 'Card' },
  ],
  ['appointment prompt', AppointmentPromptDto, { project_id: '1', drawing_id: '3', appointment_id: '9', yes_no: true }],
  ['record prompt', RecordPromptDto, { drawing_id: '3', record_crm_module: 'Deals', record_crm_record_id: '7', yes_no: false }],
];

/** Values every property is tried with: each JSON type, the edge cases of the constraints, and every enum value used. */
const CANDIDATES: unknown[] = [
  undefined,
  null,
  '',
  'x',
  '\uFE0F',
  '12',
  0,
  1.5,
  -3,
  true,
  false,
  [],
  ['a'],
  [1],
  [null],
  [[]],
  {},
  [{}],
  [[{}]],
  { ...option },
  [{ ...option }],
  [{ ...option }, 'x'],
  { name: 'A', drawing_id: '21', total: 3, pdf_url: 'u' },
  { id: '1', drawing_id: '' },
  'web',
  'app',
  'APPROVED',
  'service_payment',
  'mark_as_paid',
  'Contacts',
];

const byClassValidator = (dto: Dto, plain: Plain) => validateSync(plainToInstance(dto, plain), { forbidUnknownValues: false }).length === 0;

/** The payload with one property replaced (undefined: removed), at the top level or inside a nested object or array. */
function* variants(valid: Plain): Generator<Plain> {
  for (const key of Object.keys(valid)) {
    for (const candidate of CANDIDATES) yield withValue(valid, key, candidate);
    const inner = valid[key];
    if (Array.isArray(inner) && inner.length > 0 && typeof inner[0] === 'object') {
      for (const nestedKey of Object.keys(inner[0] as Plain)) {
        for (const candidate of CANDIDATES) yield { ...valid, [key]: [inner[0], withValue(inner[0] as Plain, nestedKey, candidate)] };
      }
    } else if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)) {
      for (const nestedKey of Object.keys(inner)) {
        for (const candidate of CANDIDATES) yield { ...valid, [key]: withValue(inner as Plain, nestedKey, candidate) };
      }
    }
  }
  // Pairs, for the properties whose validation depends on another one (ValidateIf).
  const keys = Object.keys(valid);
  for (const a of keys)
    for (const b of keys) for (const x of CANDIDATES.slice(0, 4)) for (const y of CANDIDATES.slice(-6)) yield withValue(withValue(valid, a, y), b, x);
}

function withValue(object: Plain, key: string, value: unknown): Plain {
  const copy = { ...object };
  if (value === undefined) delete copy[key];
  else copy[key] = value;
  return copy;
}

describe(shapeCheck.name, () => {
  it.each(VALID)('accepts a valid %s payload and refuses it without its first property', (_name, dto, valid) => {
    expect(byClassValidator(dto, valid)).toBe(true);
    expect(shapeCheck(dto)(valid)).toBe(true);
    expect(shapeCheck(dto)(withValue(valid, Object.keys(valid)[0], undefined))).toBe(false);
  });

  it.each(VALID)('gives class-validator’s verdict on every variant of a %s payload', (_name, dto, valid) => {
    const disagreements: string[] = [];
    const verdicts = { accepted: 0, refused: 0 };
    for (const variant of variants(valid)) {
      const expected = byClassValidator(dto, variant);
      verdicts[expected ? 'accepted' : 'refused']++;
      if (shapeCheck(dto)(variant) !== expected) disagreements.push(`${JSON.stringify(variant)}: class-validator ${expected}`);
    }
    expect(disagreements.slice(0, 5)).toEqual([]);
    expect(verdicts.accepted).toBeGreaterThan(0);
    expect(verdicts.refused).toBeGreaterThan(0);
  });

  it('follows a payment’s channel to the date field it requires', () => {
    const dto = EVENT_DTOS['proposal.payment.received'];
    const payment = { proposal_id: '2', drawing_id: '3', paid_amount: 1, payment_method: 'Card' };
    expect(shapeCheck(dto)({ ...payment, pay_channel: 'mark_as_paid', paid_date: '2026-11-20' })).toBe(true);
    expect(shapeCheck(dto)({ ...payment, pay_channel: 'mark_as_paid', paid_time: 't' })).toBe(false);
    expect(shapeCheck(dto)({ ...payment, pay_channel: 'service_payment', paid_time: 't' })).toBe(true);
  });

  it('refuses to build a check for a validation it does not know', () => {
    class Defined {
      @IsDefined() id: string;
    }
    class Child {
      @IsString() name: string;
    }
    class NestedWithoutItsClass {
      @ValidateNested() child: Child;
    }
    class WellNested {
      @Nested(() => Child) child: Child;
    }
    expect(() => shapeCheck(Defined)).toThrow(/Defined\.id: no shape check for validation of type isDefined/);
    expect(() => shapeCheck(NestedWithoutItsClass)).toThrow(/NestedWithoutItsClass\.child: declare nested DTOs with @Nested/);
    expect(shapeCheck(WellNested)({ child: { name: 'n' } })).toBe(true);
    expect(shapeCheck(WellNested)({ child: { name: 1 } })).toBe(false);
    class NestingAnUnknownValidation {
      @Nested(() => Defined) defined: Defined;
    }
    expect(() => shapeCheck(NestingAnUnknownValidation)).toThrow(/Defined\.id: no shape check/);
  });

  it('checks a DTO nested in itself at every depth', () => {
    class Node {
      @IsString() name: string;
      @IsOptional() @Nested(() => Node, { each: true }) children?: Node[];
    }
    const tree = { name: 'root', children: [{ name: 'a', children: [{ name: 'b' }] }] };
    expect(shapeCheck(Node)(tree)).toBe(true);
    expect(byClassValidator(Node, tree)).toBe(true);
    const deepFault = { name: 'root', children: [{ name: 'a', children: [{ name: 2 }] }] };
    expect(shapeCheck(Node)(deepFault)).toBe(false);
    expect(byClassValidator(Node, deepFault)).toBe(false);
  });
});
