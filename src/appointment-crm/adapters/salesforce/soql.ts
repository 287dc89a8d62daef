/**
 * SOQL text built from values someone typed: every value goes through these, never into a query raw.
 *
 * Quoted string escapes (SOQL and SOSL Reference, "Quoted String Escape Sequences",
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_quotedstringescapes.htm):
 * `\'` `\"` `\\` `\n` `\r` `\t` `\b` `\f`, and in a LIKE pattern `\%` and `\_` for the wildcards taken literally.
 */
const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '"': '\\"',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/** A string literal: quoted, every special character escaped; other control characters dropped. */
export function soqlString(value: string): string {
  return `'${escaped(value)}'`;
}

/** A LIKE pattern literal that finds `value` anywhere: the value's own `%` and `_` match only themselves. */
export function soqlContains(value: string): string {
  return `'%${escaped(value).replace(/[%_]/g, (c) => `\\${c}`)}%'`;
}

function escaped(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\\'"\n\r\t\b\f]/g, (c) => ESCAPES[c]).replace(/[\u0000-\u001f\u007f]/g, '');
}

/**
 * A LIKE pattern for a phone's last 10 digits whatever the org's formatting: `(512) 555-0100`, `512.555.0100`,
 * `+1 512 555 0100` and `512-555-0100 (cell)` all match `%512%555%0100%`: `%` is any run of characters, also at the
 * end (SOQL and SOSL Reference, "Comparison Operators", LIKE,
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_comparisonoperators.htm).
 * The digits are the only characters of the pattern, so nothing in it needs escaping. The caller compares the digits
 * exactly afterwards.
 */
export function soqlPhonePattern(lastTenDigits: string): string {
  const d = lastTenDigits.replace(/\D/g, '').slice(-10);
  // Grouped from the end as North American numbers are written: 3, 3, 4.
  const parts = [d.slice(0, -7), d.slice(-7, -4), d.slice(-4)].filter(Boolean);
  return soqlString(`%${parts.join('%')}%`);
}

/**
 * A dateTime literal, unquoted, in UTC: SOQL's `YYYY-MM-DDThh:mm:ssZ` (SOQL and SOSL Reference, "Date Formats and
 * Date Literals"), with the milliseconds only when there are some, so a keyset position is exact.
 */
export function soqlDateTime(at: Date): string {
  const iso = at.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, 19)}Z` : iso;
}

/** An API name (object or field, maybe a relationship path) as it may appear in a query: letters, digits, `_`, `.`. */
export function soqlName(name: string): string {
  if (!/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$/.test(name)) throw new Error(`not an API name: ${JSON.stringify(name).slice(0, 80)}`);
  return name;
}

/** A record id: 15 or 18 letters and digits (anything else is not an id and is refused before it reaches a query). */
export function soqlId(id: string): string {
  if (!/^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/.test(id)) throw new Error(`not a Salesforce id: ${JSON.stringify(id).slice(0, 40)}`);
  return `'${id}'`;
}

/** The relationship name of a lookup field: `i360__Prospect__c` → `i360__Prospect__r`, `OwnerId` → `Owner`. */
export function relationshipOf(field: string): string {
  if (field.endsWith('__c')) return `${field.slice(0, -3)}__r`;
  if (field.endsWith('Id')) return field.slice(0, -2);
  return field;
}
