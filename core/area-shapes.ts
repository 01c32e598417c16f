/**
 * The shapes of subdivisions (ISO 3166-2) and countries (ISO 3166-1) for drawing them on a map:
 * data/area-shapes.topo.json.gz, built by scripts/build-area-shapes.ts from Natural Earth 1:10m
 * admin-1 (public domain), simplified. Drawing only: matching still works on the boxes of
 * core/areas.ts, and a country is drawn as the part of its shape that its box covers (its home
 * part: France without French Guiana or Réunion), so the map shows what matching compares.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { feature } from 'topojson-client';
import type { GeometryObject, Topology } from 'topojson-specification';
import type { Box } from './areas';

export const AREA_SHAPES_FILE = resolve(__dirname, '..', 'data', 'area-shapes.topo.json.gz');

/** The file: a TopoJSON topology with objects `subdivisions` and `countries` (geometries with `id`: the code). */
export type AreaShapesFile = Topology & { pcx: { version: 1; source: string; minWeight: number; quantization: number } };

/** A drawn shape: GeoJSON Polygon or MultiPolygon, coordinates rounded to 3 decimals (about 100 m). */
export type Shape = { type: 'Polygon'; coordinates: number[][][] } | { type: 'MultiPolygon'; coordinates: number[][][][] };

export class AreaShapes {
  private readonly objects = new Map<string, GeometryObject>();

  constructor(private readonly topology: AreaShapesFile) {
    for (const name of ['subdivisions', 'countries']) {
      for (const g of (topology.objects[name] as any)?.geometries ?? []) this.objects.set(String(g.id), g);
    }
  }

  /** Whether a code has a shape. */
  has(code: string): boolean {
    return this.objects.has(code);
  }

  /** The code's shape; for a country, only the parts its home box overlaps (all of it without a box). */
  shape(code: string, homeBox?: Box | null): Shape | null {
    const object = this.objects.get(code);
    if (!object) return null;
    const geometry = (feature(this.topology, object) as { geometry: Shape | null }).geometry;
    if (!geometry) return null;
    return rounded(homeBox ? homePart(geometry, homeBox) : geometry);
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Coordinates rounded to 3 decimals, consecutive duplicates dropped (rings stay closed). */
export function rounded(shape: Shape): Shape {
  const ring = (r: number[][]) => {
    const out: number[][] = [];
    for (const p of r) {
      const q = [round(p[0]), round(p[1])];
      const last = out[out.length - 1];
      if (!last || last[0] !== q[0] || last[1] !== q[1]) out.push(q);
    }
    return out;
  };
  if (shape.type === 'Polygon') return { type: 'Polygon', coordinates: shape.coordinates.map(ring) };
  return { type: 'MultiPolygon', coordinates: shape.coordinates.map((polygon) => polygon.map(ring)) };
}

function ringBox(ring: number[][]): Box {
  const box: Box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of ring) {
    box[0] = Math.min(box[0], x);
    box[1] = Math.min(box[1], y);
    box[2] = Math.max(box[2], x);
    box[3] = Math.max(box[3], y);
  }
  return box;
}

const overlaps = (a: Box, b: Box) => a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];

/**
 * The polygons of a shape whose outer ring's box overlaps `box` (a country's home part); the whole
 * shape when none does (a box that says nothing about the shape must not leave nothing drawn).
 */
export function homePart(shape: Shape, box: Box): Shape {
  if (shape.type === 'Polygon') return shape;
  const kept = shape.coordinates.filter((polygon) => overlaps(ringBox(polygon[0]), box));
  if (!kept.length || kept.length === shape.coordinates.length) return shape;
  return kept.length === 1 ? { type: 'Polygon', coordinates: kept[0] } : { type: 'MultiPolygon', coordinates: kept };
}

let loaded: AreaShapes | undefined;

/** Reads the shapes once (about 2 MB gzip); an empty set when the file is missing. */
export function loadAreaShapes(file: string = AREA_SHAPES_FILE): AreaShapes {
  if (file !== AREA_SHAPES_FILE) return new AreaShapes(JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')));
  if (!loaded) {
    loaded = existsSync(file)
      ? new AreaShapes(JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')))
      : new AreaShapes({ type: 'Topology', objects: {}, arcs: [], pcx: { version: 1, source: 'none', minWeight: 0, quantization: 0 } });
  }
  return loaded;
}
