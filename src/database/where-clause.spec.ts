import { WhereClause } from './where-clause.js';

describe(WhereClause.name, () => {
  it('numbers each value as the next parameter and keeps values out of the SQL text', () => {
    const where = new WhereClause([`status = 'failed'`]);
    where.add('kind = ?', "x'; DROP TABLE sync_log; --").require('duplicates > 0').add('id < ?::bigint', '9007199254740993');
    const limit = where.param(51);

    expect(where.sql()).toBe(`WHERE status = 'failed' AND kind = $1 AND duplicates > 0 AND id < $2::bigint`);
    expect(limit).toBe('$3');
    expect(where.params).toEqual(["x'; DROP TABLE sync_log; --", '9007199254740993', 51]);
  });

  it('is empty without conditions, whatever parameters it holds', () => {
    const where = new WhereClause();
    expect(where.param(10)).toBe('$1');
    expect(where.sql()).toBe('');
    expect(where.params).toEqual([10]);
  });
});
