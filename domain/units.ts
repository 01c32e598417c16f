// Units of capacity dimensions: UNECE Recommendation 20 common codes, converted to the base
// units the broker compares in (kg, m³, m). Schemas use UNIT_CODES for their enums.

export type Dimension = 'mass' | 'volume' | 'length';
export interface Quantity { value: number; unitCode: string }

// Each factor is a fraction [numerator, denominator] of the base unit, with the exact defined
// value (the international pound and foot of 1959). value * n / d rounds once, so whole
// quantities come out exact: 1000 LTR is 1 MTQ, not 1.0000000000000002.
const UNITS: Record<Dimension, Record<string, [number, number]>> = {
  mass: { KGM: [1, 1], TNE: [1000, 1], GRM: [1, 1000], LBR: [45359237, 1e8] },
  volume: { MTQ: [1, 1], LTR: [1, 1000], DMQ: [1, 1000], FTQ: [28316846592, 1e12] },
  length: { MTR: [1, 1], CMT: [1, 100], MMT: [1, 1000], FOT: [3048, 1e4] },
};

export const UNIT_CODES = {
  mass: Object.keys(UNITS.mass),
  volume: Object.keys(UNITS.volume),
  length: Object.keys(UNITS.length),
} as const satisfies Record<Dimension, string[]>;

function factor(unitCode: string, dimension: Dimension): [number, number] {
  if (!Object.hasOwn(UNITS[dimension], unitCode)) {
    throw new RangeError(`${unitCode} is not a ${dimension} unit (${UNIT_CODES[dimension].join(', ')})`);
  }
  return UNITS[dimension][unitCode];
}

function assertAmount(value: number): void {
  // The schema already refuses these; a NaN slipping through would poison every comparison.
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`a quantity must be a finite number >= 0, not ${value}`);
}

/** The quantity in the dimension's base unit (kg, m³ or m); throws on a unit of another dimension. */
export function toBase(quantity: Quantity, dimension: Dimension): number {
  assertAmount(quantity.value);
  const [n, d] = factor(quantity.unitCode, dimension);
  return (quantity.value * n) / d;
}

/** A base-unit amount (kg, m³ or m) expressed in `unitCode`; throws on a unit of another dimension. */
export function fromBase(value: number, unitCode: string, dimension: Dimension): Quantity {
  assertAmount(value);
  const [n, d] = factor(unitCode, dimension);
  return { value: (value * d) / n, unitCode };
}
