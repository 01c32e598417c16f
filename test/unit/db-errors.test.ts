// A database away is answered 503, not 500 (issue 34 part 3): node-postgres reports a connection
// that died under a query by message only; core/db.ts gives it SQLSTATE 08006, which the API knows.
import { classified } from '../../core/db';
import { isDatabaseUnavailable } from '../../api/http';

test.each([
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'the database system is shutting down',
])('"%s" is the database away', (message) => {
  expect(isDatabaseUnavailable(new Error(message))).toBe(false);
  expect(isDatabaseUnavailable(classified(new Error(message)))).toBe(true);
});

test('a refused connection, an admin shutdown and a crash keep their codes; a query error stays ours', () => {
  for (const code of ['ECONNREFUSED', '57P01', '57P03', '08006']) expect(isDatabaseUnavailable(classified(Object.assign(new Error('x'), { code })))).toBe(true);
  const syntax = classified(Object.assign(new Error('syntax error at or near "selec"'), { code: '42601' }));
  expect(isDatabaseUnavailable(syntax)).toBe(false);
  expect(isDatabaseUnavailable(classified(new Error('duplicate key value violates unique constraint')))).toBe(false);
});
