// The names of UN/LOCODE places (data/unlocode-names.json.gz, built with the area index by
// scripts/build-unlocode.ts): "DEHAM" -> "Hamburg", for people (the console). Matching never
// reads them. Loaded on first use: 116,000 names, about 6 MB in memory.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';

const FILE = resolve(__dirname, '..', 'data', 'unlocode-names.json.gz');
let names: Record<string, string> | undefined;

/** The name of a UN/LOCODE ("DEHAM": "Hamburg"), if the list has it. */
export function placeName(code: string): string | undefined {
  names ??= JSON.parse(gunzipSync(readFileSync(FILE)).toString('utf8')) as Record<string, string>;
  return Object.hasOwn(names, code) ? names[code] : undefined;
}
