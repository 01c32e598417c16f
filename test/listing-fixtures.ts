// Complete, publishable bodies for offers and requests, and helpers to drive them through their
// states. Every test builds on these so the shape of a valid listing lives in one place.
import { Connector, type Reply } from './helpers';

import { DAY, HOUR, iso } from './market-bodies';

export { iso };

/** Fields a partner must never see before acceptance, as JSON pointers into the owner's view. */
export const PROTECTED_OFFER_FIELDS = [
  '/restrictedDetails',
  '/restrictedDetails/price',
  '/restrictedDetails/vehicleRegistration',
  '/restrictedDetails/notes',
  '/externalReferences',
  '/extensions',
  '/visibility',
  '/allocations',
];

export const PROTECTED_REQUEST_FIELDS = [
  '/restrictedDetails',
  '/restrictedDetails/pickupAddress',
  '/restrictedDetails/deliveryAddress',
  '/restrictedDetails/customer',
  '/restrictedDetails/price',
  '/restrictedDetails/goodsDetails',
  '/externalReferences',
  '/extensions',
  '/visibility',
  '/proposalIds',
  '/openProposalIds',
];

export function offerBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    availabilityWindow: { start: iso(DAY), end: iso(2 * DAY), timeZone: 'Europe/Berlin' },
    originArea: { kind: 'unlocode', code: 'DEHAM' },
    destinationArea: { kind: 'circle', center: [4.47, 51.92], radiusKm: 50 },
    direction: 'oneWay',
    vehicleProfile: { bodyType: 'curtainsider', vehicleCategory: 'articulated', equipment: ['straps', 'tailLift'] },
    availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, loadingMetres: { value: 13.6, unitCode: 'MTR' }, palletSpaces: 33 },
    constraints: { dangerousGoods: { adrClasses: ['3', '8'] }, temperature: { minCelsius: 2, maxCelsius: 8 } },
    maximumDetour: { kilometres: 50, minutes: 60 },
    expiresAt: iso(DAY),
    visibility: { mode: 'open' },
    restrictedDetails: { price: { amount: 950, currency: 'EUR' }, vehicleRegistration: 'HH-PC 1234', notes: 'secret note' },
    externalReferences: [{ system: 'alpine-tms', type: 'trip', value: 'T-1001' }],
    extensions: { 'com.alpine.tms': { priority: 'high' } },
    ...overrides,
  };
}

export function requestBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    pickupArea: { kind: 'subdivision', code: 'DE-HH' },
    pickupWindow: { start: iso(DAY), end: iso(DAY + 4 * HOUR) },
    deliveryArea: { kind: 'unlocode', code: 'NLRTM' },
    deliveryWindow: { start: iso(2 * DAY), end: iso(2 * DAY + 4 * HOUR), timeZone: 'Europe/Amsterdam' },
    requiredCapacity: { weight: { value: 12000, unitCode: 'KGM' }, volume: { value: 40, unitCode: 'MTQ' }, palletSpaces: 12 },
    vehicleRequirements: { bodyTypes: ['curtainsider', 'box'], equipment: ['tailLift'] },
    goodsProfile: { category: 'electronics', packaging: 'pallets', hazardous: false },
    handlingRequirements: { temperature: { minCelsius: 15, maxCelsius: 25 }, stackable: false },
    expiresAt: iso(DAY),
    visibility: { mode: 'open' },
    restrictedDetails: {
      pickupAddress: { lines: ['Hafenstrasse 1'], postalCode: '20457', city: 'Hamburg', countryCode: 'DE', coordinates: [9.98, 53.54] },
      deliveryAddress: { lines: ['Europaweg 9'], postalCode: '3199', city: 'Rotterdam', countryCode: 'NL' },
      customer: { name: 'ACME Retail BV', reference: 'C-77' },
      price: { amount: 1200, currency: 'EUR' },
      goodsDetails: { description: '40 pallets of 65-inch TVs', hsCodes: ['852872'], packageCount: 40 },
    },
    externalReferences: [{ system: 'baltic-erp', type: 'order', value: 'O-555' }],
    extensions: { 'se.baltic.erp': { costCentre: 'K1' } },
    ...overrides,
  };
}

export interface ListingKind {
  name: string;
  collection: string;
  body: (overrides?: Record<string, unknown>) => Record<string, unknown>;
  protectedFields: string[];
  liveStatus: string;
}

export const OFFERS: ListingKind = { name: 'capacity-offer', collection: '/capacity-offers', body: offerBody, protectedFields: PROTECTED_OFFER_FIELDS, liveStatus: 'published' };
export const REQUESTS: ListingKind = { name: 'load-request', collection: '/load-requests', body: requestBody, protectedFields: PROTECTED_REQUEST_FIELDS, liveStatus: 'published' };

export async function createListing(kind: ListingKind, owner: Connector, overrides: Record<string, unknown> = {}): Promise<any> {
  const reply = await owner.post(kind.collection, kind.body(overrides));
  if (reply.status !== 201) throw new Error(`create ${kind.name}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

export async function publishedListing(kind: ListingKind, owner: Connector, overrides: Record<string, unknown> = {}): Promise<any> {
  const created = await createListing(kind, owner, overrides);
  const published = await owner.command(`${kind.collection}/${created.id}/publish`, 1);
  if (published.status !== 200) throw new Error(`publish ${kind.name}: ${published.status} ${JSON.stringify(published.body)}`);
  return published.body;
}

export function pointerGet(doc: unknown, pointer: string): unknown {
  let node: any = doc;
  for (const part of pointer.split('/').slice(1)) {
    if (node === undefined || node === null) return undefined;
    node = node[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

export async function operator(scope?: string): Promise<Connector> {
  return Connector.of({ id: 'org-operator', clientId: 'client-operator', secret: 'secret-o' }, scope);
}

export function ids(reply: Reply): string[] {
  return reply.body.items.map((x: any) => x.id);
}
