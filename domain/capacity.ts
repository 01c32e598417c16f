// Capacity in base units (kg, m³, m, pallet spaces): conversion from a listing's capacity object
// and arithmetic on it. Pure TypeScript without Node imports: the offer machine (bundled into the
// workflow sandbox) uses it to keep allocations within availableCapacity (offer rule 10), and
// matching uses it to compare.
import { toBase } from './units';

/** Capacity in base units; an absent dimension stays absent (never zero, never inferred). */
export interface BaseCapacity {
  weightKg?: number;
  volumeM3?: number;
  loadingMetres?: number;
  palletSpaces?: number;
}

export const DIMENSIONS = [
  { key: 'weightKg', field: 'weight', dimension: 'mass', code: 'WEIGHT', unit: 'KGM' },
  { key: 'volumeM3', field: 'volume', dimension: 'volume', code: 'VOLUME', unit: 'MTQ' },
  { key: 'loadingMetres', field: 'loadingMetres', dimension: 'length', code: 'LOADING_METRES', unit: 'MTR' },
  { key: 'palletSpaces', field: 'palletSpaces', dimension: undefined, code: 'PALLET_SPACES', unit: 'pallet spaces' },
] as const;

/** Tolerance of capacity comparisons: floating-point sums of allocations must not refuse an exact fit. */
export const EPSILON = 1e-9;

/** The capacity of an offer or a request (its schema's capacity object) in base units. */
export function toBaseCapacity(capacity: Record<string, any> | undefined): BaseCapacity {
  const out: BaseCapacity = {};
  if (!capacity) return out;
  for (const d of DIMENSIONS) {
    const value = capacity[d.field];
    if (value === undefined || value === null) continue;
    out[d.key] = d.dimension ? toBase(value, d.dimension) : Number(value);
  }
  return out;
}

/** The sum of several allocations, per dimension. */
export function sumCapacity(parts: BaseCapacity[]): BaseCapacity {
  const out: BaseCapacity = {};
  for (const part of parts) for (const d of DIMENSIONS) if (part[d.key] !== undefined) out[d.key] = (out[d.key] ?? 0) + part[d.key]!;
  return out;
}

/** Per dimension, available minus allocated; a dimension the offer lacks stays absent. */
export function remainingCapacity(available: BaseCapacity, allocated: BaseCapacity): BaseCapacity {
  const out: BaseCapacity = {};
  for (const d of DIMENSIONS) {
    const have = available[d.key];
    if (have === undefined) continue;
    out[d.key] = Math.max(0, have - (allocated[d.key] ?? 0));
  }
  return out;
}

/** Dimensions of `wanted` that `remaining` lacks or cannot hold. */
export function overflow(remaining: BaseCapacity, wanted: BaseCapacity): string[] {
  return DIMENSIONS.filter((d) => wanted[d.key] !== undefined && (remaining[d.key] === undefined || wanted[d.key]! > remaining[d.key]! + EPSILON)).map((d) => d.key);
}

/** Whether taking `wanted` leaves some dimension of `remaining` at zero: the offer is then full. */
export function exhausts(remaining: BaseCapacity, wanted: BaseCapacity): boolean {
  return DIMENSIONS.some((d) => remaining[d.key] !== undefined && remaining[d.key]! - (wanted[d.key] ?? 0) <= EPSILON);
}
