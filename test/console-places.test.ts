// GET /console/places and /console/place-search: what the console reads to name and draw areas
// (public reference data): a UN/LOCODE's position and name, a subdivision's box, shape and names
// in the console's three languages, a country's box and shape; bad codes are a problem, not a 500.
import { testEnv } from './helpers';

const get = async (path: string) => {
  const res = await fetch(`${testEnv().baseUrl}${path}`);
  return { status: res.status, body: await res.json() };
};

test('places: a UN/LOCODE by name and position, a subdivision by its names and shape, a country by its shape; unknown codes left out', async () => {
  const { status, body } = await get('/console/places?codes=DEHAM,DE-BY,PL-22,FR,ZZ-ZZZ');
  expect(status).toBe(200);
  expect(body.places.DEHAM).toMatchObject({ name: 'Hamburg', point: [expect.any(Number), expect.any(Number)] });
  expect(body.places['DE-BY']).toMatchObject({ names: { en: 'Bavaria', de: 'Bayern', pl: 'Bawaria' }, box: expect.any(Array), shape: { type: expect.stringMatching(/Polygon/) } });
  expect(body.places['PL-22'].names).toEqual({ en: 'Pomeranian Voivodeship', de: 'Woiwodschaft Pommern', pl: 'województwo pomorskie' });
  expect(body.places.FR).toMatchObject({ box: expect.any(Array), shape: { type: 'MultiPolygon' } });
  expect(body.places.FR.names).toBeUndefined();
  expect(body.places['ZZ-ZZZ']).toBeUndefined();
});

test("places: a capital's names in English, German and Polish (CLDR's), found by any of them; a place without other names has none", async () => {
  const { body } = await get('/console/places?codes=PLWAW,ATVIE,DEHAM');
  expect(body.places.PLWAW).toMatchObject({ name: 'Warszawa', names: { en: 'Warsaw', de: 'Warschau', pl: 'Warszawa' } });
  expect(body.places.ATVIE.names).toEqual({ en: 'Vienna', de: 'Wien', pl: 'Wiedeń' });
  expect(body.places.DEHAM.names).toBeUndefined();
  for (const q of ['Warschau', 'warsaw', 'Warszawa']) {
    const found = await get(`/console/place-search?q=${encodeURIComponent(q)}`);
    expect({ q, first: found.body.items[0] }).toEqual({ q, first: { code: 'PLWAW', name: 'Warszawa', country: 'PL', names: { en: 'Warsaw', de: 'Warschau', pl: 'Warszawa' } } });
  }
});

test('places: a malformed code list is a 400 problem naming the parameter', async () => {
  const { status, body } = await get('/console/places?codes=DEHAM,<script>');
  expect(status).toBe(400);
  expect(body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/query/codes' }] });
});

test("places: a circle's centre named by the nearest named place within reach; none in open sea; bad points a 400 problem", async () => {
  // Antwerp's centre (UN/LOCODE BEANR lies at 4.42° E, 51.22° N) and a point in the Atlantic.
  const { status, body } = await get('/console/places?near=4.4,51.22;-30.5,45');
  expect(status).toBe(200);
  expect(body.nearby['4.4,51.22']).toEqual({ code: expect.stringMatching(/^BE/), name: expect.any(String), distanceKm: expect.any(Number) });
  expect(body.nearby['4.4,51.22'].distanceKm).toBeLessThanOrEqual(10);
  expect(body.nearby['-30.5,45']).toBeUndefined();
  for (const near of ['4.4', '4.4,51.22;', '190,10', '1e-7,0', '4.4,51.22;<script>']) {
    const bad = await get(`/console/places?near=${encodeURIComponent(near)}`);
    expect({ near, status: bad.status, code: bad.body.code, pointer: bad.body.errors?.[0]?.pointer }).toEqual({ near, status: 400, code: 'VALIDATION_FAILED', pointer: '/query/near' });
  }
});
