// The pure parts of metrics: who may scrape, and how a flow's result names its outcome.
import { scrape } from '../../core/metrics';
import { outcomeOf } from '../../workflows/interceptors';

test('GET /metrics is open without METRICS_TOKEN and asks for the exact bearer token with one', async () => {
  expect((await scrape(undefined, undefined)).status).toBe(200);
  const token = 'a-metrics-token-of-length';
  for (const header of [undefined, '', 'Bearer', `Bearer ${token}x`, `Bearer ${token.slice(1)}`, `Basic ${token}`, token]) {
    expect({ header, status: (await scrape(header, token)).status }).toEqual({ header, status: 401 });
  }
  const answer = await scrape(`Bearer ${token}`, token);
  expect(answer.status).toBe(200);
  expect(answer.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(answer.body).toContain('# TYPE pcx_command_duration_seconds histogram');
});

test('a flow outcome is its result: a string as it is, a proposal attempt by its shape, else completed', () => {
  expect(outcomeOf('committed')).toBe('committed');
  expect(outcomeOf({ ok: true, proposal: {} })).toBe('proposed');
  expect(outcomeOf({ ok: false, refusal: {} })).toBe('refused');
  expect(outcomeOf({ ok: false, incompatible: true, evaluation: {} })).toBe('incompatible');
  expect(outcomeOf(['a', 'b'])).toBe('completed');
  expect(outcomeOf(undefined)).toBe('completed');
  expect(outcomeOf(3)).toBe('completed');
});
