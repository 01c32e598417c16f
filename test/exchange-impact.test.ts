// GET /reports/exchange-impact on a real committed match (a carrier's Hamburg-Rotterdam offer, a
// shipper's 12 t from Hamburg's subdivision to Rotterdam, tendered and accepted by both): both
// organizations see the match in the month it was committed, with the figures the method gives;
// CSV by format or Accept; bad parameters are problems; an outsider and a token without
// commitments:read see nothing of it.
import { Connector, expectProblem, freshOrgs } from './helpers';
import { get } from './matching-fixtures';
import { acceptedMatch, issuedTender, tenderCommand } from './tenders.fixtures';

test('a committed match: its month, kilometres, tonne-kilometres and CO2e for both organizations, as JSON and CSV; nothing for others', async () => {
  const m = await acceptedMatch();
  const { tender } = await issuedTender(m);
  const one = (await tenderCommand(m.carrier, tender, 'decisions', { decision: 'accept', revision: 1 })).body;
  const accepted = (await tenderCommand(m.shipper, one, 'decisions', { decision: 'accept', revision: 1 })).body;
  const commitment = await get(m.shipper, `/transport-commitments/${accepted.commitmentId}`);
  const month = new Date(commitment.acceptedAt).toISOString().slice(0, 7);
  const route = m.proposal.routeCompatibility;

  for (const party of [m.shipper, m.carrier]) {
    const reply = await party.get(`/reports/exchange-impact?from=${month}&to=${month}`);
    expect(reply.status).toBe(200);
    const report = reply.body;
    expect(report).toMatchObject({ organizationId: party.id, from: month, to: month, totals: { matches: 1, matchesWithoutWeight: 0 } });
    expect(report.months).toHaveLength(1);
    const [row] = report.months;
    expect(row).toMatchObject({ month, matches: 1, matchesWithoutWeight: 0 });
    const [item] = row.items;
    // The load's distance is the one the match's explanation gave (same areas, same baseline); the
    // offer's leg is the explanation's; the loaded km the smaller of both.
    expect(item).toMatchObject({ commitmentId: commitment.id, committedAt: commitment.acceptedAt, pickup: 'DE-HH', delivery: 'NLRTM', weightKg: 12000, offerLegKm: route.offerDistanceKm });
    expect(item.loadKm).toBeCloseTo(route.loadDistanceKm, 1);
    expect(item.loadedKm).toBeCloseTo(Math.min(item.loadKm, route.offerDistanceKm), 1);
    expect(item.loadedKm).toBeGreaterThan(300);
    expect(item.loadedKm).toBeLessThan(600);
    expect(item.tonneKm).toBeCloseTo(12 * item.loadedKm, 0);
    expect(item.kgCO2e).toBeCloseTo((12 * item.loadedKm * 101) / 1000, 0);
    expect(row).toMatchObject({ loadedKm: item.loadedKm, tonneKm: item.tonneKm, kgCO2e: item.kgCO2e });
    expect(report.method.factor).toMatchObject({ gCO2ePerTonneKm: 101, scope: 'WTW' });
    expect(report.method.factor.source).toMatch(/GLEC Framework v3/);
    expect(report.method.formula).toMatch(/factor/);

    // The same months as CSV, by format or by Accept, as a download.
    for (const csv of [await party.get(`/reports/exchange-impact?from=${month}&to=${month}&format=csv`), await party.get(`/reports/exchange-impact?from=${month}&to=${month}`, { accept: 'text/csv' })]) {
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
      expect(csv.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="exchange-impact-.*-${month}-${month}\\.csv"$`));
      const lines = String(csv.body).split('\r\n');
      expect(lines[0]).toBe('month,matches,matchesWithoutWeight,loadedKm,tonneKm,kgCO2e,factorGCO2ePerTonneKm,factorSource');
      expect(lines[1].split(',').slice(0, 7)).toEqual([month, '1', '0', String(row.loadedKm), String(row.tonneKm), String(row.kgCO2e), '101']);
    }
  }

  // The default range: the twelve months up to the current one.
  const byDefault = (await m.shipper.get('/reports/exchange-impact')).body;
  expect(byDefault.months).toHaveLength(12);
  expect(byDefault.to).toBe(new Date().toISOString().slice(0, 7));

  // An outsider's report names nothing of it; a token without commitments:read is refused.
  const outsider = (await m.outsider.get(`/reports/exchange-impact?from=${month}&to=${month}`)).body;
  expect(outsider).toMatchObject({ organizationId: m.outsider.id, totals: { matches: 0 } });
  expect(JSON.stringify(outsider)).not.toContain(commitment.id);
  expectProblem(await (await Connector.of(m.shipper.org, 'capacity:read')).get('/reports/exchange-impact'), 403, 'INSUFFICIENT_SCOPE');
});

test('bad parameters are problems that name the parameter', async () => {
  const outsider = await Connector.of(freshOrgs(1)[0]);
  for (const [query, pointer] of [
    ['from=2026-13', '/query/from'],
    ['to=26-01', '/query/to'],
    ['from=2026-05&to=2026-04', '/query/from'],
    ['from=2000-01&to=2026-01', '/query/from'],
    ['format=xml', '/query/format'],
    ['from=2026-01&from=2026-02', '/query/from'],
  ]) {
    const reply = await outsider.get(`/reports/exchange-impact?${query}`);
    expectProblem(reply, 400, 'VALIDATION_FAILED');
    expect({ query, errors: reply.body.errors }).toEqual({ query, errors: [{ pointer, message: expect.any(String) }] });
  }
});

