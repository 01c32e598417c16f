// GS1 identifiers as EPCIS 2.0 writes them, and the CBV's vocabulary in each of its forms. Pure.
//
// - A GLN (global location number: 13 digits, the last a check digit) is read from an SGLN or
//   PGLN EPC URI (`urn:epc:id:sgln:4012345.00022.0`: company prefix and location reference, 12
//   digits together, the check digit computed; the extension, a sub-location such as a dock door,
//   is left out) or from a GS1 Digital Link URI (`https://id.gs1.org/414/4012345000115`, any host;
//   AI 414 a location, 417 a party; AI 254, the extension, left out). A Digital Link GLN with a
//   wrong check digit is no GLN.
// - GINC (consignment) and GSIN (shipment) are the GS1 keys of a movement: read from their EPC URI
//   (`urn:epc:id:ginc:0614141.xyz47%2F11`, `urn:epc:id:gsin:4012345.222333444`) or their Digital
//   Link (AI 401, 402).
// - A CBV term (business step, disposition, business transaction type) is bare in EPCIS 2.0 JSON
//   (`departing`), or its Web URI (`https://ref.gs1.org/cbv/BizStep-departing`), or that as a
//   compact IRI of the standard context (`cbv:BizStep-departing`), or the URN of EPCIS 1.x XML
//   (`urn:epcglobal:cbv:bizstep:departing`; GS1's JSON Schema refuses this one in a document).

/** The GS1 check digit of a key's digits (without it): weights 3 and 1 from the right. */
export function checkDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += (digits.charCodeAt(digits.length - 1 - i) - 48) * (i % 2 === 0 ? 3 : 1);
  return (10 - (sum % 10)) % 10;
}

const validKey = (key: string) => /^\d+$/.test(key) && checkDigit(key.slice(0, -1)) === Number(key[key.length - 1]);

/** A GLN's 12 digits from a company prefix and a reference (EPC URI), with its check digit. */
function glnOf(prefix: string, reference: string): string | undefined {
  const digits = prefix + reference;
  if (!/^\d{6,12}$/.test(prefix) || !/^\d*$/.test(reference) || digits.length !== 12) return undefined;
  return digits + checkDigit(digits);
}

/** The Digital Link path of a URI (`/414/…` after any prefix path), or nothing. */
function digitalLinkPath(uri: string): string | undefined {
  if (!/^https?:\/\//i.test(uri) || uri.length > 2000) return undefined;
  try {
    return new URL(uri).pathname;
  } catch {
    return undefined;
  }
}

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

export type GlnKind = 'location' | 'party';

/** The GLN a location or party URI names (SGLN, PGLN, Digital Link 414 or 417), or nothing. */
export function glnOfUri(uri: string, kinds: readonly GlnKind[] = ['location', 'party']): string | undefined {
  const sgln = /^urn:epc:id:sgln:(\d+)\.(\d*)\.[^.]+$/.exec(uri);
  if (sgln && kinds.includes('location')) return glnOf(sgln[1], sgln[2]);
  const pgln = /^urn:epc:id:pgln:(\d+)\.(\d*)$/.exec(uri);
  if (pgln && kinds.includes('party')) return glnOf(pgln[1], pgln[2]);
  const path = digitalLinkPath(uri);
  const link = path && /\/(414|417)\/(\d{13})(?:\/254\/[^/]+)?\/?$/.exec(path);
  if (!link || !kinds.includes(link[1] === '414' ? 'location' : 'party')) return undefined;
  return validKey(link[2]) ? link[2] : undefined;
}

/** A 13-digit GLN as a plain string (a document's `sender` may be one), or what a URI names. */
export function glnOfIdentity(text: string): string | undefined {
  if (/^\d{13}$/.test(text)) return validKey(text) ? text : undefined;
  return glnOfUri(text);
}

export interface MovementKey {
  type: 'ginc' | 'gsin';
  /** The key itself: GINC as its characters, GSIN as its 17 digits. */
  value: string;
}

/** The GINC or GSIN an EPC names (EPC URI or Digital Link), or nothing. */
export function movementKeyOf(uri: string): MovementKey | undefined {
  const ginc = /^urn:epc:id:ginc:(\d{6,12})\.([^.]+)$/.exec(uri);
  if (ginc) {
    const value = decoded(ginc[2]);
    return value && value.length + ginc[1].length <= 30 ? { type: 'ginc', value: ginc[1] + value } : undefined;
  }
  const gsin = /^urn:epc:id:gsin:(\d{6,12})\.(\d+)$/.exec(uri);
  if (gsin) {
    const digits = gsin[1] + gsin[2];
    return digits.length === 16 ? { type: 'gsin', value: digits + checkDigit(digits) } : undefined;
  }
  const path = digitalLinkPath(uri);
  const link = path && /\/(401|402)\/([^/]+)\/?$/.exec(path);
  if (!link) return undefined;
  const value = decoded(link[2]);
  if (!value) return undefined;
  if (link[1] === '402') return /^\d{17}$/.test(value) && validKey(value) ? { type: 'gsin', value } : undefined;
  return value.length <= 30 ? { type: 'ginc', value } : undefined;
}

/** The CBV vocabularies a term can be of, with their Web URI and URN names. */
const VOCABULARIES = { bizStep: ['BizStep', 'bizstep'], disposition: ['Disp', 'disp'], bizTransactionType: ['BTT', 'btt'] } as const;
export type Vocabulary = keyof typeof VOCABULARIES;

/** The bare CBV term of a value in any of its forms (`departing`), or nothing when it is not a CBV term's form. */
export function cbvTerm(value: string, vocabulary: Vocabulary): string | undefined {
  const [web, urn] = VOCABULARIES[vocabulary];
  if (/^[a-z][a-z_]*$/.test(value)) return value;
  const m =
    new RegExp(`^https?://ref\\.gs1\\.org/cbv/${web}-([a-z][a-z_]*)$`).exec(value) ??
    new RegExp(`^cbv:${web}-([a-z][a-z_]*)$`).exec(value) ??
    new RegExp(`^urn:epcglobal:cbv:${urn}:([a-z][a-z_]*)$`).exec(value);
  return m?.[1];
}

/** The identifier a CBV business transaction URN carries (`urn:epcglobal:cbv:bt:<GLN>:<id>`), decoded. */
export function transactionIdOf(uri: string): string | undefined {
  const m = /^urn:epcglobal:cbv:bt:(\d{13}):(.+)$/.exec(uri);
  return m ? decoded(m[2]) : undefined;
}

/** A business transaction URN issued by the party with this GLN. */
export function transactionUri(gln: string, id: string): string {
  return `urn:epcglobal:cbv:bt:${gln}:${encodeURIComponent(id)}`;
}

/** A GLN as a location's Digital Link URI (EPCIS 2.0 takes it where an SGLN goes; an SGLN needs the company prefix's length, which a GLN does not tell). */
export const locationUri = (gln: string) => `https://id.gs1.org/414/${gln}`;

export const isGln = (text: string) => /^\d{13}$/.test(text) && validKey(text);
