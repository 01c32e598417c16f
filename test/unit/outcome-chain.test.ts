// The outcome chain as GET /execution-outcomes lists it: head first, each record followed by the one
// it supersedes, whatever their times (records decided in one workflow task share submittedAt).
import { chainOrder } from '../../read-model/execution-reference';

const record = (id: string, supersedes: string | null, supersededByOutcomeId: string | null) => ({ id, supersedes, supersededByOutcomeId });

test('head first, then along supersedes, though the database gave another order', () => {
  const a = record('a', null, 'b');
  const b = record('b', 'a', 'c');
  const c = record('c', 'b', null);
  expect(chainOrder([a, b, c]).map((o) => o.id)).toEqual(['c', 'b', 'a']);
  expect(chainOrder([b, a, c]).map((o) => o.id)).toEqual(['c', 'b', 'a']);
});

test('records the links do not reach keep their place after the chain; a cycle ends the walk', () => {
  const a = record('a', null, null);
  const stray = record('x', 'zz', 'a');
  expect(chainOrder([stray, a]).map((o) => o.id)).toEqual(['a', 'x']);
  const p = record('p', 'q', null);
  const q = record('q', 'p', 'p');
  expect(chainOrder([q, p]).map((o) => o.id)).toEqual(['p', 'q']);
  expect(chainOrder([])).toEqual([]);
});
