// HTTP API of LoadRequest (the listing API of api/listings.ts, configured for requests), and the
// mapping of the specification's two LoadRequest descriptions: bodies may use the schema form,
// responses always use the resource form (docs/decisions.md, "LoadRequest forms").
import type { FieldError } from '../domain/problems';
import { loadRequest } from '../domain/load-request';
import { listingRouter, type ListingApi } from './listings';

/** Schema-form field -> resource-form field, for the fields that only change name. */
const RENAMED: Record<string, string> = { originArea: 'pickupArea', destinationArea: 'deliveryArea' };
/** Schema-form window pairs -> resource-form window. */
const WINDOWS: Record<string, [string, string]> = {
  pickupWindow: ['pickupWindowStart', 'pickupWindowEnd'],
  deliveryWindow: ['deliveryWindowStart', 'deliveryWindowEnd'],
};
const SCHEMA_FORM_CAPACITY = ['weightKg', 'volumeM3', 'vehicleBodyTypes'];

/**
 * Rewrites schema-form fields into the resource form. Giving one concept in both forms is an
 * error (we never guess which one the caller meant); so is half of a window pair. Works for
 * create bodies and for merge patches (where null removes the field).
 */
export function toResourceForm(body: Record<string, any>, errors: FieldError[]): Record<string, any> {
  const out: Record<string, any> = { ...body };
  const conflict = (schemaField: string, resourceField: string) =>
    errors.push({ pointer: `/${schemaField}`, message: `give ${resourceField} or ${schemaField}, not both` });

  for (const [from, to] of Object.entries(RENAMED)) {
    if (!(from in out)) continue;
    if (to in out) conflict(from, to);
    out[to] = out[from];
    delete out[from];
  }
  for (const [window, [startField, endField]] of Object.entries(WINDOWS)) {
    const hasStart = startField in out;
    const hasEnd = endField in out;
    if (!hasStart && !hasEnd) continue;
    if (window in out) conflict(hasStart ? startField : endField, window);
    if (hasStart !== hasEnd) errors.push({ pointer: `/${hasStart ? endField : startField}`, message: `is required together with ${hasStart ? startField : endField}` });
    const [start, end] = [out[startField], out[endField]];
    if (hasStart && hasEnd && (start === null) !== (end === null)) {
      errors.push({ pointer: `/${start === null ? startField : endField}`, message: `must be null exactly when ${start === null ? endField : startField} is` });
    }
    out[window] = start === null && end === null ? null : { start, end };
    delete out[startField];
    delete out[endField];
  }
  const capacity = out.requiredCapacity;
  if (isSchemaFormCapacity(capacity)) {
    const converted: Record<string, unknown> = {};
    if (capacity.weightKg !== undefined) converted.weight = { value: capacity.weightKg, unitCode: 'KGM' };
    if (capacity.volumeM3 !== undefined) converted.volume = { value: capacity.volumeM3, unitCode: 'MTQ' };
    if (capacity.loadingMetres !== undefined) converted.loadingMetres = { value: capacity.loadingMetres, unitCode: 'MTR' };
    out.requiredCapacity = converted;
    if (capacity.vehicleBodyTypes?.length) {
      if ('vehicleRequirements' in out) conflict('requiredCapacity/vehicleBodyTypes', 'vehicleRequirements');
      else out.vehicleRequirements = { bodyTypes: capacity.vehicleBodyTypes };
    }
  }
  return out;
}

/** Whether a requiredCapacity is in the schema form (numbers, or body types). */
function isSchemaFormCapacity(capacity: any): boolean {
  return Boolean(capacity) && typeof capacity === 'object' && (SCHEMA_FORM_CAPACITY.some((k) => k in capacity) || typeof capacity.loadingMetres === 'number');
}

/** Resource-form capacity member -> the schema-form number it was made of. */
const CAPACITY_NUMBERS: Record<string, string> = { weight: 'weightKg', volume: 'volumeM3', loadingMetres: 'loadingMetres' };

/**
 * The pointer into the body the client sent for a pointer into its resource form (what
 * `toResourceForm` made of it), so that a refusal names the field the client wrote:
 * `/requiredCapacity/loadingMetres/value` -> `/requiredCapacity/loadingMetres`,
 * `/pickupWindow/end` -> `/pickupWindowEnd`, `/pickupArea/code` -> `/originArea/code`.
 * Pointers into fields sent in the resource form stay as they are.
 */
export function sentPointer(pointer: string, body: Record<string, any>): string {
  const under = (prefix: string) => pointer === prefix || pointer.startsWith(`${prefix}/`);
  for (const [from, to] of Object.entries(RENAMED)) {
    if (from in body && !(to in body) && under(`/${to}`)) return `/${from}${pointer.slice(to.length + 1)}`;
  }
  for (const [window, [startField, endField]] of Object.entries(WINDOWS)) {
    if (window in body || !(startField in body || endField in body) || !under(`/${window}`)) continue;
    if (under(`/${window}/end`)) return `/${endField}${pointer.slice(window.length + 5)}`;
    if (under(`/${window}/start`)) return `/${startField}${pointer.slice(window.length + 7)}`;
    return `/${startField in body ? startField : endField}`;
  }
  const capacity = body.requiredCapacity;
  if (isSchemaFormCapacity(capacity)) {
    const m = /^\/requiredCapacity\/([^/]+)(\/.*)?$/.exec(pointer);
    if (m && CAPACITY_NUMBERS[m[1]]) return `/requiredCapacity/${CAPACITY_NUMBERS[m[1]]}`;
    if (capacity.vehicleBodyTypes?.length && !('vehicleRequirements' in body) && under('/vehicleRequirements')) {
      return under('/vehicleRequirements/bodyTypes') ? `/requiredCapacity/vehicleBodyTypes${pointer.slice('/vehicleRequirements/bodyTypes'.length)}` : '/requiredCapacity/vehicleBodyTypes';
    }
  }
  return pointer;
}

/** How the listing API serves offers (also read by api/listing-series.ts to check a series' terms). */
export const LOAD_REQUEST_API: ListingApi = {
  resource: loadRequest,
  bodies: { create: 'LoadRequestCreateRequest', update: 'LoadRequestUpdateRequest' },
  // "protocol operator with admin scope" (no further scope named for requests)
  cancelScopes: [],
  areaFields: ['pickupArea', 'deliveryArea'],
  windowFields: ['pickupWindow', 'deliveryWindow'],
  handlingFields: ['handlingRequirements'],
  normalize: toResourceForm,
  sentPointer,
  words: {
    noun: 'load request',
    client: { name: 'requests', columns: ['id', 'status', 'ownerOrganizationId', 'pickupArea.code', 'deliveryArea.code', 'resourceVersion'] },
    queryPrefix: 'Request',
    lapseWindows: 'pickup or delivery window',
    publishNeeds:
      '`pickupArea`, `pickupWindow`, `deliveryArea`, `deliveryWindow`, `requiredCapacity` (with at least one dimension), ' +
      '`vehicleRequirements`, `goodsProfile`, `expiresAt` (in the future) and `visibility`, with each window starting before ' +
      'it ends and the delivery window ending after the pickup window starts',
    restricted: 'exact addresses, customer identity, price, complete goods details',
    partnerHidden: '`proposalIds`, `openProposalIds`, `acceptedProposalId`',
    createNote: 'The body may use the resource form or the schema form (see "LoadRequest input forms" above); the response is always in the resource form.',
    createErrors: 'one concept given in both the resource and the schema form, half of a schema-form window pair',
    updateNote:
      'Schema-form fields are accepted as on create and rewritten to the resource form (`null` for a schema-form field ' +
      'removes its resource-form field; both halves of a window pair must be given together).',
  },
};

export const loadRequests = listingRouter(LOAD_REQUEST_API);
