// The real EDIFACT messages of test/fixtures/edifact/ (SOURCES.md there), and the one change tests
// make to them: dates moved into the future, where a message must still be current.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServedOrganization } from '../gateway/config';

export const BARGE = 'iftmin_d99b_barge-rotterdam-durban_assimbly.edi';

export const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', 'edifact', name), 'latin1');

/** A message with its dates moved by `days` (every CCYYMMDD after a DTM qualifier), `drop` segments left out and UNT recounted. */
export function moved(text: string, days: number, drop: RegExp[] = []): string {
  let out = text.replace(/(DTM\+\d+:)(\d{8})/g, (_m, head: string, date: string) => {
    const d = new Date(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(4, 6)) - 1, Number(date.slice(6, 8)) + days));
    return head + d.toISOString().slice(0, 10).replace(/-/g, '');
  });
  for (const pattern of drop) out = out.replace(pattern, '');
  const segments = out.slice(out.indexOf('UNH+'), out.indexOf('UNT+')).split("'").filter((s) => s.trim()).length + 1;
  return out.replace(/UNT\+\d+/, `UNT+${segments}`);
}

/**
 * A message as a new interchange: its UNB and UNZ interchange control reference (0020) set to
 * `reference` (at most 14 characters), as a sender numbers each interchange it sends; the gateway
 * acts on one reference of a sender once.
 */
export function asInterchange(text: string, reference: string): string {
  const ref = reference.slice(-14);
  return text.replace(/(UNB\+(?:[^+']*\+){4})[^+']*/, `$1${ref}`).replace(/(UNZ\+[^+']*\+)[^+']*/, `$1${ref}`);
}

/** The shipper the barge instruction (BARGE) is from, as the gateway serves it: sender ICT, its load requests published openly. */
export const EDIFACT_SHIPPER: ServedOrganization = {
  organizationId: 'org-shipper',
  clientId: 'shipper',
  clientSecret: 'secret',
  edifact: { senderIds: ['ICT'] },
  loadRequests: { publish: true, visibility: { mode: 'open' }, bodyTypes: ['curtainsider'], goodsCategory: 'chemicals', timeZone: 'Europe/Amsterdam', pointTimeMinutes: 120 },
};
