import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withSetClause } from '../../src/engine/queries/setClause';

const statement = 'UPDATE workers SET state = ?{set} WHERE id = ?';

describe('withSetClause', () => {
  it('splices the columns in and gives their values in the same order', () => {
    assert.deepEqual(withSetClause(statement, { task_id: 't1', attempt: 2 }), {
      sql: 'UPDATE workers SET state = ?, task_id = ?, attempt = ? WHERE id = ?',
      params: ['t1', 2],
    });
    assert.deepEqual(withSetClause(statement, undefined), { sql: 'UPDATE workers SET state = ? WHERE id = ?', params: [] });
  });

  it('builds a statement once per set of names: other values, the same string', () => {
    const first = withSetClause(statement, { task_id: 't1' });
    const second = withSetClause(statement, { task_id: null });
    assert.equal(second.sql, first.sql);
    assert.deepEqual(second.params, [null]);
    assert.notEqual(withSetClause(statement, { attempt: 1 }).sql, first.sql);
  });

  it('refuses a column name that could change the statement, every time', () => {
    for (let round = 0; round < 2; round++) {
      assert.throws(() => withSetClause(statement, { 'state = 1; --': 1 }), /bug: invalid column name/);
    }
  });
});
