/** The object without its null, undefined, empty-text and empty-object fields: the service's optional fields are left out, not null. */
export function present<T extends object>(fields: object): T {
  const kept = Object.entries(fields).filter(
    ([, value]) => value !== null && value !== undefined && value !== '' && !(typeof value === 'object' && Object.keys(value as object).length === 0),
  );
  return Object.fromEntries(kept) as T;
}
