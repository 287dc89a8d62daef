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
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walk(v, k);
    return out;
  }
  if (typeof value === 'number' && key !== undefined && isIdKey(key) && Number.isInteger(value)) return String(value);
  return value;
}

function isIdKey(key: string): boolean {
  return key === 'id' || key.endsWith('_id');
}
