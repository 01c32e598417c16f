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

test('places: a malformed code list is a 400 problem naming the parameter', async () => {
  const { status, body } = await get('/console/places?codes=DEHAM,<script>');
  expect(status).toBe(400);
  expect(body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/query/codes' }] });
});
