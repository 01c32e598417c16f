// The map's pure geometry (console/geometry.js) and the shapes of subdivisions and countries
// (core/area-shapes.ts, data/area-shapes.topo.json.gz): a circle from a drag, a circle's ring,
// the clusters' images, and shapes that are shapes (not boxes), simplified, a country without
// its distant parts.
// The console's files are plain browser modules without type declarations (served as they are).
// @ts-ignore
import { CLUSTER, circleFromDrag, circleRing, clusterImageOf, destination, distanceKm, MAX_RADIUS_KM } from '../../console/geometry.js';
import { homePart, loadAreaShapes, rounded, type Shape } from '../../core/area-shapes';
import { loadAreaIndex } from '../../core/areas';

/** Ray casting over every ring (holes subtract): whether [lon, lat] lies inside the shape. */
function inside(shape: Shape, [x, y]: number[]): boolean {
  const polygons = shape.type === 'Polygon' ? [shape.coordinates] : shape.coordinates;
  let hit = false;
  for (const ring of polygons.flat()) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i];
      const [xj, yj] = ring[j];
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) hit = !hit;
    }
  }
  return hit;
}
const vertices = (shape: Shape) => (shape.type === 'Polygon' ? [shape.coordinates] : shape.coordinates).flat(2).length;

describe('a circle drawn on the map', () => {
  test('centred where the drag began, its radius the distance to where it ended, in whole km', () => {
    const antwerp = [4.4025, 51.2194];
    const edge = destination(antwerp, 52.4, 90);
    expect(circleFromDrag(antwerp, edge)).toEqual({ kind: 'circle', center: [4.4025, 51.2194], radiusKm: 52 });
    // Tenths under 10 km; the broker's bounds (1 to 1000 km) hold whatever the drag.
    expect(circleFromDrag(antwerp, destination(antwerp, 4.44, 0)).radiusKm).toBe(4.4);
    expect(circleFromDrag(antwerp, antwerp).radiusKm).toBe(1);
    expect(circleFromDrag([0, 10], [60, 10]).radiusKm).toBe(MAX_RADIUS_KM);
  });

  test('its ring is closed and every position lies at the radius', () => {
    const ring = circleRing([9.99, 53.55], 50, 32);
    expect(ring).toHaveLength(33);
    expect(ring[32]).toEqual(ring[0]);
    for (const p of ring) expect(distanceKm([9.99, 53.55], p)).toBeCloseTo(50, 6);
  });
});

describe('clusters at low zoom', () => {
  test('ends cluster until zoom 6, within 36 px; a bubble says its count in the colour of whose ends it holds', () => {
    expect(CLUSTER).toEqual({ radius: 36, maxZoom: 6, minPoints: 2 });
    expect(clusterImageOf('pcx-cluster-7-offer')).toEqual({ count: 7, mix: 'offer', size: 26, label: '7' });
    expect(clusterImageOf('pcx-cluster-42-mixed')).toMatchObject({ count: 42, mix: 'mixed', size: 32 });
    expect(clusterImageOf('pcx-cluster-1500-request')).toMatchObject({ size: 40, label: '1k' });
    expect(clusterImageOf('lane-arrow')).toBeNull();
  });
});

describe('subdivisions and countries as their shapes', () => {
  const shapes = loadAreaShapes();
  const index = loadAreaIndex();

  test('a subdivision is its outline: Hamburg holds Hamburg and not Bremen, with more corners than a box', () => {
    const hh = shapes.shape('DE-HH')!;
    expect(inside(hh, [9.99, 53.55])).toBe(true);
    expect(inside(hh, [8.8, 53.08])).toBe(false);
    expect(vertices(hh)).toBeGreaterThan(20);
    // Codes UN/LOCODE still uses that ISO 3166-2 replaced: Poland's numeric voivodeships.
    expect(inside(shapes.shape('PL-22')!, [18.65, 54.35])).toBe(true);
  });

  test("France is France: its land, not the Bay of Biscay its box covers, and not French Guiana", () => {
    const box = index.countryBox('FR')!;
    const fr = shapes.shape('FR', box)!;
    expect(inside(fr, [2.35, 48.85])).toBe(true);
    expect(inside(fr, [-4, 46])).toBe(false);
    expect(box[0] <= -4 && box[1] <= 46).toBe(true);
    expect(inside(fr, [-53, 4])).toBe(false);
    expect(inside(shapes.shape('FR')!, [-53, 4])).toBe(true);
  });

  test('simplified: no subdivision of Germany has more than 1,000 corners, coordinates to 3 decimals', () => {
    for (const code of ['DE-BY', 'DE-NI', 'DE-SH', 'DE-MV']) {
      const shape = shapes.shape(code)!;
      expect(vertices(shape)).toBeLessThan(1000);
      expect((shape.coordinates.flat(3) as number[]).every((x) => Math.round(x * 1000) === x * 1000 || Math.abs(Math.round(x * 1000) - x * 1000) < 1e-6)).toBe(true);
    }
    expect(shapes.shape('XX-ZZZ')).toBeNull();
  });

  test('a home part keeps the polygons its box overlaps, all of them when none does', () => {
    const square = (x: number, y: number) => [[[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1], [x, y]]];
    const shape: Shape = { type: 'MultiPolygon', coordinates: [square(0, 0), square(50, 50)] };
    expect(homePart(shape, [-1, -1, 2, 2])).toEqual({ type: 'Polygon', coordinates: square(0, 0) });
    expect(homePart(shape, [100, 0, 101, 1])).toEqual(shape);
    expect(rounded({ type: 'Polygon', coordinates: [[[0.00011, 0], [0.00012, 0], [1, 1], [0.00011, 0]]] })).toEqual({ type: 'Polygon', coordinates: [[[0, 0], [1, 1], [0, 0]]] });
  });
});
