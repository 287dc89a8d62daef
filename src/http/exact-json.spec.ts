import { idString, jsonInteger, parseExactJson, stringifyExactJson } from './exact-json.js';

describe(parseExactJson.name, () => {
  it('keeps integers beyond 2^53 as exact strings, wherever they stand', () => {
    expect(parseExactJson('{"id":36029621652695017,"list":[9007199254740993, 1],"n":-36029621652695017}')).toEqual({
      id: '36029621652695017',
      list: ['9007199254740993', 1],
      n: '-36029621652695017',
    });
  });

  it('keeps safe numbers, decimals and ids written as strings as they are', () => {
    expect(parseExactJson('{"id":"36029621652695017","amount":120.5,"small":9007199254740991,"e":1e3}')).toEqual({
      id: '36029621652695017',
      amount: 120.5,
      small: 9007199254740991,
      e: 1000,
    });
  });

  it('does not round a decimal with more digits than a double holds', () => {
    expect(parseExactJson('{"x":0.12345678901234567891}')).toEqual({ x: '0.12345678901234567891' });
  });

  it('leaves digits inside strings alone, escaped quotes and all, and reads a long string whole', () => {
    const long = 'x'.repeat(5_000_000);
    expect(parseExactJson(`{"a":"id \\"36029621652695017\\" and 36029621652695018","b":36029621652695019,"c":"${long}"}`)).toEqual({
      a: 'id "36029621652695017" and 36029621652695018',
      b: '36029621652695019',
      c: long,
    });
  });

  it('refuses text that is not JSON', () => {
    expect(() => parseExactJson('{"id":')).toThrow();
    expect(() => parseExactJson('{"id":36029621652695017')).toThrow();
  });
});

describe(stringifyExactJson.name, () => {
  it('writes an id marked as an integer digit for digit, and strings as strings', () => {
    expect(stringifyExactJson({ project_id: jsonInteger('36029621652695017'), record: '4150868000005277036' })).toBe(
      '{"project_id":36029621652695017,"record":"4150868000005277036"}',
    );
    expect(() => jsonInteger('12a')).toThrow();
  });
});

describe(idString.name, () => {
  it('turns ids given as safe numbers or strings into strings, and refuses anything else', () => {
    expect(idString(42)).toBe('42');
    expect(idString('36029621652695017')).toBe('36029621652695017');
    expect(() => idString(1.5)).toThrow();
    expect(() => idString(null)).toThrow();
  });
});
