// The sandbox's event disorder (core/sandbox.ts), as pure functions: what a page is served as.
import { disorderPage, settledPrefix, SandboxRecord } from '../../core/sandbox';

test('a disordered page is its events reversed, then the previous page again, reversed', () => {
  expect(disorderPage([1, 2, 3], [])).toEqual([3, 2, 1]);
  expect(disorderPage([4], [1, 2, 3])).toEqual([4, 3, 2, 1]);
  expect(disorderPage([], [4])).toEqual([4]);
});

test('a page ends after the last burst of changes the feed has been quiet since for the hold, never inside a burst', () => {
  const at = (s: number) => new Date(Date.parse('2026-11-27T10:00:00Z') + s * 1000).toISOString();
  const rows = [at(0), at(0.5), at(4), at(4.5), at(9)];
  // At 10 s: the burst at 4-4.5 s is followed by 4.5 s of quiet; the one at 9 s only by 1 s.
  expect(settledPrefix(rows, (t) => t, 2, Date.parse(at(10)))).toEqual(rows.slice(0, 4));
  expect(settledPrefix(rows, (t) => t, 2, Date.parse(at(11)))).toEqual(rows);
  // A hold longer than any quiet time: nothing yet.
  expect(settledPrefix(rows, (t) => t, 5, Date.parse(at(10)))).toEqual([]);
  expect(settledPrefix(rows, (t) => t, 0, Date.parse(at(9)))).toEqual(rows);
  expect(settledPrefix([], (t: string) => t, 2)).toEqual([]);
});

test('a client is served disordered pages until its count of non-empty pages is used up', () => {
  const sandbox = new SandboxRecord();
  sandbox.setDisorder('c', 0, 2);
  expect(sandbox.serveDisordered('other', [1, 2])).toEqual([1, 2]);
  expect(sandbox.serveDisordered('c', [1, 2])).toEqual([2, 1]);
  expect(sandbox.serveDisordered('c', [])).toEqual([2, 1]);
  expect(sandbox.disorderOf('c')).toBeUndefined();
  expect(sandbox.serveDisordered('c', [3, 4])).toEqual([3, 4]);
  sandbox.setDisorder('c', 0, 5);
  sandbox.setDisorder('c', 0, 0);
  expect(sandbox.disorderOf('c')).toBeUndefined();
});

test('a fault matches by method, path prefix and suffix, and is used up', () => {
  const sandbox = new SandboxRecord();
  sandbox.addFault({ clientId: 'c', status: 409, retryAfterSeconds: 1, remaining: 1, method: 'POST', pathPrefix: '/match-proposals/', pathSuffix: '/decisions' });
  expect(sandbox.takeFault('c', 'POST', '/match-proposals/x')).toBeUndefined();
  expect(sandbox.takeFault('c', 'GET', '/match-proposals/x/decisions')).toBeUndefined();
  expect(sandbox.takeFault('c', 'POST', '/match-proposals/x/decisions')?.status).toBe(409);
  expect(sandbox.takeFault('c', 'POST', '/match-proposals/x/decisions')).toBeUndefined();
});
