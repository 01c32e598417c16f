// The formats the gateway reads (gateway/format.ts says what a format is). Adding one: a module
// that exports a `Format`, listed here.
import { edifact } from './edifact/format';
import type { Format } from './format';

export const FORMATS: readonly Format[] = [edifact];

export function formatOf(name: string): Format {
  const format = FORMATS.find((f) => f.name === name);
  if (!format) throw new Error(`no format ${name}`);
  return format;
}
