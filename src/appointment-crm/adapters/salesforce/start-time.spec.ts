import { startOf } from './start-time.js';

describe('startOf', () => {
  it('composes a date and a 12-hour time of day in the org time zone', () => {
    expect(startOf('2026-11-25', '10:00 AM', 'America/Chicago')).toBe('2026-11-25T16:00:00.000Z');
    expect(startOf('2026-07-01', '2:30 PM', 'America/Chicago')).toBe('2026-07-01T19:30:00.000Z');
    expect(startOf('2026-11-25', '12:15 am', 'UTC')).toBe('2026-11-25T00:15:00.000Z');
  });

  it('reads a 24-hour time, and reads the time as UTC when the org has no time zone', () => {
    expect(startOf('2026-11-25', '14:05', null)).toBe('2026-11-25T14:05:00.000Z');
  });

  it('keeps the date alone when the time cannot be read, and refuses what is not a date', () => {
    expect(startOf('2026-11-25', 'morning', 'America/Chicago')).toBe('2026-11-25T00:00:00.000Z');
    expect(startOf('25/11/2026', '10:00 AM', 'UTC')).toBeNull();
  });
});
