// The sandbox's event disorder (core/sandbox.ts), as pure functions: what a page is served as.
import { disorderPage, heldBack, SandboxRecord } from '../../core/sandbox';

test('a disordered page is its events reversed, then the previous page again, reversed', () => {
  expect(disorderPage([1, 2, 3], [])).toEqual([3, 2, 1]);
  expect(disorderPage([4], [1, 2, 3])).toEqual([4, 3, 2, 1]);
  expect(disorderPage([], [4])).toEqual([4]);
});

test('events younger than the hold are held back, with every event after them', () => {
  const now = Date.parse('2026-11-27T10:00:10Z');
  const rows = ['2026-11-27T10:00:00Z', '2026-11-27T10:00:07Z', '2026-11-27T10:00:09Z', '2026-11-27T10:00:02Z'];
  expect(heldBack(rows, (t) => t, 2, now)).toEqual(rows.slice(0, 2));
  expect(heldBack(rows, (t) => t, 0, now)).toEqual(rows);
  expect(heldBack(rows, (t) => t, 30, now)).toEqual([]);
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
