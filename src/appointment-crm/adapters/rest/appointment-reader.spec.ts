import { AppointmentShapeError, readAppointment, readAppointmentList, readAppointmentPage, readNotes } from './appointment-reader.js';

describe('appointment readers', () => {
  it('reads an appointment with only its id: every other field null, the status empty', () => {
    expect(readAppointment({ id: '9007199254740993' })).toEqual({
      id: '9007199254740993',
      status: '',
      scheduled_at: null,
      ends_at: null,
      job_number: null,
      updated_at: null,
      customer: null,
      sales_rep: null,
      web_url: null,
    });
  });

  it('reads web_url only as an http or https address', () => {
    expect(readAppointment({ id: '1', web_url: 'https://crm.example.com/a/1' }).web_url).toBe('https://crm.example.com/a/1');
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', '/relative', 42, 'not a url'])
      expect(readAppointment({ id: '1', web_url: bad }).web_url).toBeNull();
  });

  it('reads numbers as their digits, the draft names, and ignores what it does not know', () => {
    const appt = readAppointment({
      id: 12,
      job_number: 2041,
      scheduled_at: '2026-12-01T15:00:00Z',
      customer: { address: { zip_code: 78701 }, age: 3 },
      sales_rep: 'Sam',
    });
    expect(appt).toMatchObject({ id: '12', job_number: '2041', scheduled_at: '2026-12-01T15:00:00Z', sales_rep: null });
    expect(appt.customer).toEqual({
      name: null,
      email: null,
      phone: null,
      address: { street: null, city: null, state: null, zip_code: '78701', country: null },
    });
  });

  it('prefers scheduled_at and zip_code over their other names', () => {
    const appt = readAppointment({ id: '1', scheduled_at: 'a', starts_at: 'b', customer: { address: { zip_code: 'p', postal_code: 'z' } } });
    expect(appt.scheduled_at).toBe('a');
    expect(appt.customer?.address?.zip_code).toBe('p');
  });

  it('reads starts_at and postal_code when the contract names are absent, and the sales rep with a phone', () => {
    const appt = readAppointment({
      id: '1',
      starts_at: 'b',
      customer: { address: { postal_code: 'z' } },
      sales_rep: { name: 'Sam', email: 'sam@example.com', phone: 5125550199 },
    });
    expect(appt.scheduled_at).toBe('b');
    expect(appt.customer?.address?.zip_code).toBe('z');
    expect(appt.sales_rep).toEqual({ name: 'Sam', email: 'sam@example.com', phone: '5125550199' });
  });

  it('reads a page: an empty cursor is the last page', () => {
    expect(readAppointmentPage({ items: [], next_cursor: '' })).toEqual({ items: [], next_cursor: null });
    expect(readAppointmentPage({ items: [], next_cursor: 'c2' })).toEqual({ items: [], next_cursor: 'c2' });
    expect(readAppointmentPage({ items: [] })).toEqual({ items: [], next_cursor: null });
  });

  it('reads a search answer as { items } or a bare list', () => {
    expect(readAppointmentList({ items: [{ id: '1' }] }).map((a) => a.id)).toEqual(['1']);
    expect(readAppointmentList([{ id: '2' }]).map((a) => a.id)).toEqual(['2']);
  });

  it('reads notes, ids exact', () => {
    expect(readNotes([{ id: '9007199254740995', text: 'Paid', created_at: '2026-11-25T09:15:02Z', by: 'x' }])).toEqual([
      { id: '9007199254740995', text: 'Paid', created_at: '2026-11-25T09:15:02Z' },
    ]);
  });

  it('refuses what cannot be read', () => {
    const refused = [
      () => readAppointmentPage([]),
      () => readAppointmentPage({ items: [null] }),
      () => readAppointment({ status: 'Open' }),
      () => readAppointment({ id: 1.5 }),
      () => readAppointmentList({}),
      () => readNotes({}),
      () => readNotes([{ text: 'no id' }]),
    ];
    for (const read of refused) expect(read).toThrow(AppointmentShapeError);
  });
});
