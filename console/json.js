// @ts-check
/**
 * JSON that keeps big integers digit for digit. The API sends ids as strings, but payloads may hold the service's
 * ids as raw JSON numbers beyond 2^53, which JSON.parse would round: such an integer becomes a BigNum holding its
 * digits, and `pretty` writes it back as it came.
 */

export class BigNum {
  /** @param {string} raw the integer's digits, as written */
  constructor(raw) {
    this.raw = raw;
  }

  toString() {
    return this.raw;
  }
}

const NUM = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * JSON.parse, except that integers which are not safe integers come back as BigNum.
 * @param {string} text
 * @returns {any} the value (its shape is the API's to say; callers declare what they read)
 */
export function parseJson(text) {
  let i = 0;
  const fail = () => {
    throw new SyntaxError('invalid JSON at position ' + i);
  };
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const str = () => {
    const start = i++;
    while (i < text.length) {
      const ch = text[i];
      if (ch === '\\') i += 2;
      else if (ch === '"') {
        i++;
        return JSON.parse(text.slice(start, i));
      } else i++;
    }
    return fail();
  };
  /** @returns {unknown} */
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj = {};
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        const key = str();
        ws();
        if (text[i] !== ':') fail();
        i++;
        // defineProperty, not assignment: a "__proto__" key is data, not the prototype.
        Object.defineProperty(obj, key, { value: value(), enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return obj;
        }
        fail();
      }
    }
    if (c === '[') {
      i++;
      /** @type {unknown[]} */
      const arr = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        fail();
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    NUM.lastIndex = i;
    const m = NUM.exec(text);
    if (!m) return fail();
    i = NUM.lastIndex;
    const n = Number(m[0]);
    return /^-?\d+$/.test(m[0]) && !Number.isSafeInteger(n) ? new BigNum(m[0]) : n;
  };
  const result = value();
  ws();
  if (i !== text.length) fail();
  return result;
}

/**
 * JSON.stringify(v, null, 2), with BigNum written as its digits.
 * @param {unknown} v
 * @param {string} [indent]
 * @returns {string}
 */
export function pretty(v, indent = '') {
  if (v instanceof BigNum) return v.raw;
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const inner = indent + '  ';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return '[\n' + v.map((x) => inner + pretty(x, inner)).join(',\n') + '\n' + indent + ']';
  }
  const record = /** @type {Record<string, unknown>} */ (v);
  const keys = Object.keys(record);
  if (keys.length === 0) return '{}';
  return '{\n' + keys.map((k) => inner + JSON.stringify(k) + ': ' + pretty(record[k], inner)).join(',\n') + '\n' + indent + '}';
}
