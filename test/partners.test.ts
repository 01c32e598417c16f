// GET /partners: names for the organizations the caller deals with, and no other (isolation: a
// draft names its accepting organization only to its requesting one; a stranger is never named).
import { Connector, createRelationship, freshOrgs } from './helpers';

test('an organization sees itself and its partners by name, with the most current relationship; a draft only on its own side; a stranger nowhere', async () => {
  const [a, b, c, stranger] = await Promise.all(freshOrgs(4).map((o) => Connector.of(o)));
  const ab = (await createRelationship(a, b)).body;
  await a.command(`/partner-relationships/${ab.id}/request`, 1);
  await b.command(`/partner-relationships/${ab.id}/accept`, 2);
  const ac = (await createRelationship(a, c)).body;
  const list = async (x: Connector) => {
    const reply = await x.get('/partners');
    expect(reply.status).toBe(200);
    return reply.body.items.map((i: any) => [i.organizationId, i.relationship]);
  };
  expect(await list(a)).toEqual(expect.arrayContaining([[a.id, 'self'], [b.id, 'active'], [c.id, 'draft']]));
  expect((await list(a))[0]).toEqual([a.id, 'self']);
  expect(await list(c)).toEqual([[c.id, 'self']]);
  await a.command(`/partner-relationships/${ac.id}/request`, 1);
  expect(await list(c)).toEqual([[c.id, 'self'], [a.id, 'requested']]);
  expect(await list(b)).toEqual([[b.id, 'self'], [a.id, 'active']]);
  expect(await list(stranger)).toEqual([[stranger.id, 'self']]);
  const names = (await a.get('/partners')).body.items.map((i: any) => i.name);
  for (const name of names) expect(typeof name).toBe('string');
});
