/**
 * An appointment's start when the org keeps it as a date and a time of day in text (improveit 360 classic:
 * `i360__Start__c` a date, `i360__Start_Time__c` such as `10:00 AM`): the wall-clock time in the org's time zone
 * (Organization.TimeZoneSidKey, an IANA name), as an instant in UTC. A time that cannot be read leaves the date alone
 * (midnight UTC, as Salesforce answers a date); no time zone reads the time as UTC.
 */
export function startOf(date: string, time: string | null, timeZone: string | null): string | null {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date.trim());
  if (!day) return null;
  const clock = time ? /^\s*(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s*m?\.?\s*$|^\s*(\d{1,2}):(\d{2})\s*$/i.exec(time) : null;
  let hours = 0;
  let minutes = 0;
  if (clock?.[1] !== undefined) {
    hours = (Number(clock[1]) % 12) + (clock[3].toLowerCase() === 'p' ? 12 : 0);
    minutes = Number(clock[2] ?? 0);
  } else if (clock?.[4] !== undefined) {
    hours = Number(clock[4]);
    minutes = Number(clock[5]);
  }
  if (hours > 23 || minutes > 59) hours = minutes = 0;
  const wall = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]), hours, minutes);
  if (!clock || !timeZone) return new Date(wall).toISOString();
  try {
    // The zone's offset at that moment, found by asking how the guess reads there; twice, across a change of offset.
    let at = wall;
    for (let i = 0; i < 2; i++) at = wall - (readIn(at, timeZone) - at);
    return new Date(at).toISOString();
  } catch {
    return new Date(wall).toISOString();
  }
}

/** The wall-clock time an instant shows in a time zone, as if that wall clock were UTC. */
function readIn(at: number, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(at))
      .map((p) => [p.type, p.value]),
  );
  return Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
}
