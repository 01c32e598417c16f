// The formats the gateway reads (gateway/format.ts says what a format is). Adding one: a module
// that exports a `Format`, listed here.
import { edifact } from './edifact/format';
import { epcis } from './epcis/format';
import type { Format } from './format';
import { spreadsheet } from './spreadsheet/format';

export const FORMATS: readonly Format[] = [edifact, spreadsheet, epcis];

/** The format of a file dropped into a mailbox, by its name's ending; EDIFACT when none matches. */
export function formatOfFile(name: string): Format {
  const lower = name.toLowerCase();
  return FORMATS.find((f) => f.extensions.some((e) => lower.endsWith(e))) ?? edifact;
}

export function formatOf(name: string): Format {
  const format = FORMATS.find((f) => f.name === name);
  if (!format) throw new Error(`no format ${name}`);
  return format;
}
