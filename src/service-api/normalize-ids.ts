/**
 * The service writes ids as JSON numbers in some answers and strings in others. After exact parsing, big ones are
 * already strings; this turns the small ones (`id`, `*_id` keys) into strings too, so every id has one type.
 */
export function normalizeIds<T>(value: unknown): T {
  return walk(value) as T;
}

function walk(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => walk(item, key));
  if (value !== null && typeof value === 'object') {
    // fromEntries defines own properties: a `__proto__` key stays data, it never becomes the object's prototype.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
  }
  if (typeof value === 'number' && key !== undefined && isIdKey(key) && Number.isInteger(value)) return String(value);
  return value;
}

function isIdKey(key: string): boolean {
  return key === 'id' || key.endsWith('_id');
}
