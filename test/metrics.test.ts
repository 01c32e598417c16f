// GET /metrics on the API (core/metrics.ts, docs/deployment.md): what an operator scrapes moves
// with what the broker does. Each assertion reads a figure before and after an action of this
// test; other test files share the broker, so figures are compared as "grew by at least".
import { parsePrometheusTextFormat } from './metrics-text';
import { call, Connector, expectProblem, freshOrgs, testEnv } from './helpers';
import { market, waitFor, waitProposals } from './matching-fixtures';

async function scrape(): Promise<ReturnType<typeof parsePrometheusTextFormat>> {
  const res = await fetch(`${testEnv().baseUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusTextFormat(await res.text());
}

test('the metrics an operator relies on are exposed, with their types', async () => {
  const families = await scrape();
  for (const [name, type] of [
    ['pcx_command_duration_seconds', 'histogram'],
    ['pcx_problems_total', 'counter'],
    ['pcx_idempotency_takeovers_total', 'counter'],
    ['pcx_outbox_write_lag_seconds', 'histogram'],
    ['pcx_feed_held_back_seconds', 'gauge'],
    ['pcx_open_entities', 'gauge'],
    ['pcx_activity_duration_seconds', 'histogram'],
    ['pcx_activity_failures_total', 'counter'],
    ['pcx_flow_duration_seconds', 'histogram'],
    ['process_resident_memory_bytes', 'gauge'],
  ] as const) {
    expect({ name, type: families.get(name)?.type }).toEqual({ name, type });
  }
  // Read from Temporal when scraped: every kind is listed, even at zero.
  expect(families.get('pcx_open_entities')!.samples.map((s) => s.labels.kind).sort()).toEqual(
    ['capacity-offer', 'connector', 'execution-handover', 'execution-reference', 'listing-series', 'load-request', 'match-proposal', 'organization', 'partner-relationship', 'transport-commitment', 'transport-tender', 'user'],
  );
  expect(families.get('pcx_feed_held_back_seconds')!.samples[0].value).toBeGreaterThanOrEqual(0);
});

test('commands, problems, activities, the outbox and flows move their figures', async () => {
  const before = await scrape();
  const [a, b] = await Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
  const created = await a.post('/partner-relationships', { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'] });
  expect(created.status).toBe(201);
  const refused = await a.command(`/partner-relationships/${created.body.id}/request`, 7);
  expectProblem(refused, 409, 'STALE_RESOURCE_VERSION');
  const invalid = await call('POST', '/partner-relationships', a.token, { requestingOrganizationId: 42 });
  expectProblem(invalid, 400, 'VALIDATION_FAILED');
  // A matching market: its flows run in the worker of this broker (role all).
  const m = await market();
  await waitProposals(m.shipper, `request=${m.request.id}`);

  const after = await waitFor('the matching flow reported', async () => {
    const now = await scrape();
    return count(now, 'pcx_flow_duration_seconds', { flow: 'matchListingFlow' }) > count(before, 'pcx_flow_duration_seconds', { flow: 'matchListingFlow' }) ? now : undefined;
  });
  const grew = (name: string, labels: Record<string, string>) => count(after, name, labels) - count(before, name, labels);
  expect(grew('pcx_command_duration_seconds', { kind: 'partner-relationship', command: 'create', status: '201' })).toBeGreaterThanOrEqual(2);
  expect(grew('pcx_command_duration_seconds', { kind: 'partner-relationship', command: 'request', status: '409' })).toBeGreaterThanOrEqual(1);
  expect(grew('pcx_command_duration_seconds', { kind: 'capacity-offer', command: 'publish', status: '200' })).toBeGreaterThanOrEqual(1);
  expect(grew('pcx_problems_total', { code: 'STALE_RESOURCE_VERSION', status: '409' })).toBeGreaterThanOrEqual(1);
  expect(grew('pcx_problems_total', { code: 'VALIDATION_FAILED', status: '400' })).toBeGreaterThanOrEqual(1);
  // Commands are written by their senders; a transition with effects (a publish starts matching) by
  // the activity that starts them, first.
  expect(grew('pcx_activity_duration_seconds', { activity: 'startFlows', result: 'ok' })).toBeGreaterThanOrEqual(2);
  expect(grew('pcx_outbox_write_lag_seconds', { kind: 'match-proposal' })).toBeGreaterThanOrEqual(1);
  // Counted from Temporal's visibility when scraped (cached 5 s): the new proposal shows soon.
  const open = await waitFor('an open proposal counted', async () => {
    const now = await scrape();
    return count(now, 'pcx_open_entities', { kind: 'match-proposal' }) >= 1 ? now : undefined;
  });
  expect(count(open, 'pcx_open_entities', { kind: 'capacity-offer' })).toBeGreaterThanOrEqual(1);
});

/**
 * A histogram's `_count`, a counter's or gauge's value, summed over the samples whose labels
 * include the given ones (0 when there are none).
 */
function count(families: ReturnType<typeof parsePrometheusTextFormat>, name: string, labels: Record<string, string>): number {
  const family = families.get(name);
  if (!family) return 0;
  const sampleName = family.type === 'histogram' ? `${name}_count` : name;
  return family.samples
    .filter((s) => s.name === sampleName && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}
