import { normalizeIds } from './normalize-ids.js';

describe(normalizeIds.name, () => {
  it('turns integer ids into strings at any depth and leaves other numbers alone', () => {
    const parsed = JSON.parse('{"id":7,"total":7,"items":[{"drawing_id":12,"qty":2}],"project_id":"36029621652695017"}');
    expect(normalizeIds(parsed)).toEqual({ id: '7', total: 7, items: [{ drawing_id: '12', qty: 2 }], project_id: '36029621652695017' });
  });

  it('keeps a "__proto__" key as data instead of making it the prototype', () => {
    const parsed = JSON.parse('{"__proto__":{"id":"1","name":"planted"},"tags":[]}');
    const normalised = normalizeIds<Record<string, unknown>>(parsed);
    expect(Object.getPrototypeOf(normalised)).toBe(Object.prototype);
    expect(normalised.name).toBeUndefined();
    expect(Object.keys(normalised)).toEqual(['__proto__', 'tags']);
  });
});
