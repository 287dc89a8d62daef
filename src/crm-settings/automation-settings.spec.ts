import {
  APPOINTMENT_CRM_DEFAULTS,
  RECORD_CRM_DEFAULTS,
  storedSettings,
  validateAppointmentCrmAutomation,
  validateRecordCrmAutomation,
} from './automation-settings.js';

describe('automation settings validation', () => {
  it('takes a field left out from the settings in effect', () => {
    const current = { ...APPOINTMENT_CRM_DEFAULTS, statuses: ['Sold'], owner: 'a@example.com' };
    expect(validateAppointmentCrmAutomation({ create_projects: true }, current)).toEqual({
      ok: true,
      settings: { ...current, create_projects: true },
    });
  });

  it('names every bad field once, in the order of the settings', () => {
    const result = validateRecordCrmAutomation({ create_projects: 1, module: 'Invoices', values: 'Won', owner: 'x', fallback_product_id: -4 });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors.map((e) => `${e.field}:${e.code}`)).toEqual([
      'create_projects:isBoolean',
      'module:isIn',
      'values:isArray',
      'owner:isEmail',
      'fallback_product_id:isDigits',
    ]);
  });

  it('refuses a body that is not an object, and fields that do not exist, but ignores what GET adds', () => {
    expect(validateAppointmentCrmAutomation([])).toMatchObject({ ok: false, errors: [{ field: 'body', code: 'isObject' }] });
    expect(validateAppointmentCrmAutomation({ satuses: [] })).toMatchObject({ ok: false, errors: [{ field: 'satuses', code: 'whitelistValidation' }] });
    expect(validateAppointmentCrmAutomation({ last_run_at: '2026-01-01T00:00:00Z', cursor: null, last_error: 'x' })).toEqual({
      ok: true,
      settings: APPOINTMENT_CRM_DEFAULTS,
    });
  });

  it('takes start_from as an ISO 8601 date and time with its offset, not in the future, kept as UTC', () => {
    const startFrom = (value: unknown) => validateAppointmentCrmAutomation({ start_from: value });
    expect(startFrom('2026-01-31T01:30:00+01:00')).toMatchObject({ ok: true, settings: { start_from: '2026-01-31T00:30:00.000Z' } });
    expect(startFrom(null)).toMatchObject({ ok: true, settings: { start_from: null } });
    for (const bad of ['2026-01-31', '2026-01-31T00:00:00', '2026-02-30T00:00:00Z', 'now', 1769817600000])
      expect(startFrom(bad)).toMatchObject({ ok: false, errors: [{ field: 'start_from', code: 'isIso8601' }] });
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    expect(startFrom(tomorrow)).toMatchObject({ ok: false, errors: [{ field: 'start_from', code: 'maxDate' }] });
  });

  it('reads a stored row over the defaults, keeping only known fields', () => {
    expect(storedSettings('record', { module: 'Quotes', gone: true })).toEqual({ ...RECORD_CRM_DEFAULTS, module: 'Quotes' });
    expect(storedSettings('appointment', null)).toEqual(APPOINTMENT_CRM_DEFAULTS);
  });
});
