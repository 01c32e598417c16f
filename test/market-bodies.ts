// The bodies of a carrier's offer and a shipper's request that match (Hamburg to Rotterdam), free of
// any test framework: the tests (through matching-fixtures.ts) and the benchmarks (bench/scale.ts)
// build their markets from these.
export const HOUR = 3600_000;
export const DAY = 24 * HOUR;
export const iso = (msFromNow: number) => new Date(Date.now() + msFromNow).toISOString();

/** Hamburg to Rotterdam, 24 t and 33 pallet spaces, 80 km detour. */
export const offer = (o: Record<string, unknown> = {}) => ({
  availabilityWindow: { start: iso(DAY), end: iso(3 * DAY) },
  originArea: { kind: 'unlocode', code: 'DEHAM' },
  destinationArea: { kind: 'unlocode', code: 'NLRTM' },
  vehicleProfile: { bodyType: 'curtainsider', equipment: ['tailLift'] },
  availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, palletSpaces: 33 },
  maximumDetour: { kilometres: 80 },
  expiresAt: iso(2 * DAY),
  visibility: { mode: 'open' },
  restrictedDetails: { price: { amount: 900, currency: 'EUR' } },
  ...o,
});

/** From Hamburg's subdivision to Rotterdam, 12 t and 12 pallets by default. */
export const request = (r: Record<string, unknown> = {}) => ({
  pickupArea: { kind: 'subdivision', code: 'DE-HH' },
  pickupWindow: { start: iso(DAY + 2 * HOUR), end: iso(DAY + 6 * HOUR) },
  deliveryArea: { kind: 'unlocode', code: 'NLRTM' },
  deliveryWindow: { start: iso(DAY + 12 * HOUR), end: iso(2 * DAY) },
  requiredCapacity: { weight: { value: 12000, unitCode: 'KGM' }, palletSpaces: 12 },
  vehicleRequirements: { bodyTypes: ['curtainsider'] },
  goodsProfile: { category: 'electronics' },
  expiresAt: iso(2 * DAY),
  visibility: { mode: 'open' },
  restrictedDetails: { customer: { name: 'ACME Secret Retail' }, pickupAddress: { lines: ['Geheimweg 1'], city: 'Hamburg', countryCode: 'DE' } },
  ...r,
});
