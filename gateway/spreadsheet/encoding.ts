// The character encoding of a CSV export that does not declare its own (no BOM, not UTF-8). Excel
// writes "CSV" in the Windows code page of the computer's locale: Windows-1250 in Poland, the Czech
// Republic, Slovakia or Hungary, Windows-1252 in Western Europe; older systems write ISO 8859-2 or
// -1. The bytes do not always say which: the organization's setting (`encoding`) decides, else the
// one reading of the file that is plausible; a file that reads two ways is quarantined naming the
// readings (with a word of each), never read by a guess. Decoding is iconv-lite's; the statistics
// of the languages written in each encoding are chardet's.
import chardet from 'chardet';
import iconv from 'iconv-lite';

/** The encodings read, as `settings.spreadsheet.encoding` names them. */
export const ENCODINGS = ['utf-8', 'windows-1250', 'iso-8859-2', 'windows-1252', 'iso-8859-1'] as const;
export type Encoding = (typeof ENCODINGS)[number];
type SingleByte = Exclude<Encoding, 'utf-8'>;
const SINGLE_BYTE: readonly SingleByte[] = ['windows-1250', 'iso-8859-2', 'windows-1252', 'iso-8859-1'];

/**
 * chardet has one recogniser per ISO 8859 part, with the languages written in it (Central European:
 * Polish, Czech, Hungarian, Romanian; Western), and names the part's Windows code page instead when
 * bytes 0x80-0x9F occur: a reading's confidence is its part's.
 */
const PART: Readonly<Record<string, 'iso-8859-1' | 'iso-8859-2'>> = { 'windows-1250': 'iso-8859-2', 'iso-8859-2': 'iso-8859-2', 'windows-1252': 'iso-8859-1', 'iso-8859-1': 'iso-8859-1' };

/** How much likelier (chardet's confidence) the best reading must be than each other one to be taken without a setting. */
const CONFIDENCE_RATIO = 2;

/** A symbol, a superscript or a fraction between two letters: no word of any language, but what a misread letter looks like ("Wroc³aw", "Œwi¹tek"). */
const MISREAD_WORD = /\p{L}[\p{S}\p{No}¡§¶·¿]\p{L}/u;

/**
 * The letters beyond ASCII of the languages written in these encodings (and the ordinal signs of
 * some): a word's such letters are all of one language ("Dvořák": Czech), where a misread word
 * mixes languages' ("Dvoøák": ø is Danish, á is not; "Kříľ": ř Czech, ľ Slovak).
 */
const ALPHABETS: ReadonlyArray<ReadonlySet<string>> = Object.values({
  de: 'äöüßé', fr: 'àâæçéèêëîïôœùûüÿ', it: 'àèéìíîòóùúºª', es: 'áéíóúüñºª', pt: 'áâãàçéêíóôõúüºª', ca: 'àçéèíïòóúü', nl: 'éèëïöü',
  da_no: 'æøåéóòô', sv: 'åäöé', fi: 'äöåšž', is: 'áéíóúýþæöð', et: 'õäöüšž',
  pl: 'ąćęłńóśźż', cs: 'áčďéěíňóřšťúůýž', sk: 'áäčďéíĺľňóôŕšťúýž', hu: 'áéíóöőúüű', sl_hr: 'čšžćđ', ro: 'ăâîşţșț', sq: 'çë',
}).map((letters) => new Set(letters));

/** A text with a word whose letters beyond ASCII no one language has together. */
function hasMisspeltWord(text: string): boolean {
  // Words first, then those with a letter beyond ASCII: one pass (a pattern that finds the letter
  // inside a word backtracks over every long run of letters, seconds on a large file).
  for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
    if (!/[^\x00-\x7f]/.test(word)) continue;
    const own = new Set(word.replace(/[a-z]/g, ''));
    if (!ALPHABETS.some((alphabet) => [...own].every((c) => alphabet.has(c)))) return true;
  }
  return false;
}

export type Decoded = { text: string; encodings: Encoding[]; detected: boolean } | { code: 'ENCODING_INVALID' | 'ENCODING_AMBIGUOUS'; message: string };

/** The text of a CSV's bytes: in the organization's encoding when it sets one, else in the one plausible reading. */
export function decodeCsv(bytes: Buffer, configured?: Encoding): Decoded {
  if (configured) return decodeAs(bytes, configured);
  const readings = readingsOf(bytes);
  if (!readings.length) return { code: 'ENCODING_INVALID', message: `the file is neither UTF-8 nor text in ${SINGLE_BYTE.join(', ')}: ${SINGLE_BYTE.map((e) => notText(bytes, e, firstNotText(bytes, e)!)).join('; ')}` };
  const choice = choose(bytes, readings);
  if ('chosen' in choice) return { text: choice.chosen.text, encodings: choice.chosen.encodings, detected: true };
  return { code: 'ENCODING_AMBIGUOUS', message: `the file is not UTF-8, and it reads in more than one way: ${describe(bytes, choice.candidates)}; the organization sets no encoding (settings.spreadsheet.encoding) to decide, or save the file as "CSV UTF-8"` };
}

/** The bytes in the encoding the organization sets; a byte that is no character in it is the file's fault, said with how the file reads otherwise. */
function decodeAs(bytes: Buffer, encoding: Encoding): Decoded {
  const bad = encoding === 'utf-8' ? firstInvalidUtf8(bytes) : firstNotText(bytes, encoding);
  if (bad === undefined) return { text: iconv.decode(bytes, encoding), encodings: [encoding], detected: false };
  const choice = choose(bytes, readingsOf(bytes));
  const hint = 'chosen' in choice ? `; it reads as ${choice.chosen.encodings.join(' or ')} ("${wordAt(bytes, bad, choice.chosen.encodings[0])}")` : '';
  return { code: 'ENCODING_INVALID', message: `the file is not ${encoding}, which settings.spreadsheet.encoding names: ${notText(bytes, encoding, bad)}${hint}` };
}

interface Reading {
  /** The encodings that read the file as this text. */
  encodings: SingleByte[];
  text: string;
}

/** The distinct texts of the file in the single-byte encodings in which each of its bytes is a character. */
function readingsOf(bytes: Buffer): Reading[] {
  const readings: Reading[] = [];
  for (const encoding of SINGLE_BYTE) {
    if (firstNotText(bytes, encoding) !== undefined) continue;
    const text = iconv.decode(bytes, encoding);
    const same = readings.find((r) => r.text === text);
    if (same) same.encodings.push(encoding);
    else readings.push({ encodings: [encoding], text });
  }
  return readings;
}

/**
 * The one reading to take without a setting: the only one; else the only one whose words are words
 * (no MISREAD_WORD, none misspelt: hasMisspeltWord); else the one chardet finds CONFIDENCE_RATIO
 * times likelier than each other one. Windows-1250 and ISO 8859-2 (or -1252 and -1) are one part
 * to chardet: when they read a file differently, neither is likelier, and the file is ambiguous.
 * Otherwise the readings left.
 */
function choose(bytes: Buffer, readings: Reading[]): { chosen: Reading } | { candidates: Reading[] } {
  if (readings.length <= 1) return readings.length ? { chosen: readings[0] } : { candidates: [] };
  const plausible = readings.filter((r) => !MISREAD_WORD.test(r.text) && !hasMisspeltWord(r.text));
  if (plausible.length === 1) return { chosen: plausible[0] };
  const candidates = plausible.length ? plausible : readings;
  const confidence = new Map<string, number>();
  for (const match of chardet.analyse(bytes)) {
    const part = PART[match.name.toLowerCase()];
    if (part) confidence.set(part, Math.max(confidence.get(part) ?? 0, match.confidence));
  }
  const ranked = candidates.map((reading) => ({ reading, score: Math.max(...reading.encodings.map((e) => confidence.get(PART[e]) ?? 0)) })).sort((a, b) => b.score - a.score);
  return ranked[0].score > 0 && ranked[0].score >= CONFIDENCE_RATIO * (ranked[1]?.score ?? 0) ? { chosen: ranked[0].reading } : { candidates };
}

/** Each reading with its word where the readings first differ: `"Dąbrowa" in windows-1250, "Dšbrowa" in iso-8859-2 (line 3)`. */
function describe(bytes: Buffer, readings: Reading[]): string {
  const offset = bytes.findIndex((b) => b >= 0x80 && new Set(readings.map((r) => iconv.decode(Buffer.from([b]), r.encodings[0]))).size > 1);
  return `${readings.map((r) => `"${wordAt(bytes, offset, r.encodings[0])}" in ${r.encodings.join(' or ')}`).join(', ')} (line ${lineOf(bytes, offset)})`;
}

/** The bytes each single-byte encoding has no character for: unassigned, or a C1 control code (never text in a CSV). */
const NOT_TEXT = new Map<SingleByte, Set<number>>();
function notTextBytes(encoding: SingleByte): Set<number> {
  let set = NOT_TEXT.get(encoding);
  if (!set) {
    set = new Set();
    for (let b = 0x80; b <= 0xff; b++) {
      const c = iconv.decode(Buffer.from([b]), encoding);
      if (c === '\uFFFD' || /[\x80-\x9f]/.test(c)) set.add(b);
    }
    NOT_TEXT.set(encoding, set);
  }
  return set;
}

const firstNotText = (bytes: Buffer, encoding: SingleByte): number | undefined => {
  const set = notTextBytes(encoding);
  const at = bytes.findIndex((b) => set.has(b));
  return at < 0 ? undefined : at;
};

/** A well-formed UTF-8 sequence of two to four bytes (RFC 3629), read from a latin1 string of the bytes. */
const UTF8_SEQUENCE = /[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2}/y;

function firstInvalidUtf8(bytes: Buffer): number | undefined {
  const text = bytes.toString('latin1');
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 0x80) continue;
    UTF8_SEQUENCE.lastIndex = i;
    const sequence = UTF8_SEQUENCE.exec(text);
    if (!sequence) return i;
    i += sequence[0].length - 1;
  }
  return undefined;
}

const hex = (b: number) => `0x${b.toString(16).toUpperCase().padStart(2, '0')}`;
const notText = (bytes: Buffer, encoding: Encoding, at: number) => `byte ${hex(bytes[at])} on line ${lineOf(bytes, at)} ${encoding === 'utf-8' ? 'begins no UTF-8 character' : `is no character in ${encoding}`}`;
const lineOf = (bytes: Buffer, offset: number) => bytes.subarray(0, offset).filter((b) => b === 0x0a).length + 1;

/** The word around a byte (to a space, a delimiter or a quote, at most 30 bytes either side), in an encoding. */
function wordAt(bytes: Buffer, offset: number, encoding: Encoding): string {
  const stop = (b: number | undefined) => b === undefined || b <= 0x20 || b === 0x2c || b === 0x3b || b === 0x22;
  let start = offset;
  let end = offset + 1;
  while (!stop(bytes[start - 1]) && offset - start < 30) start--;
  while (!stop(bytes[end]) && end - offset < 30) end++;
  return iconv.decode(bytes.subarray(start, end), encoding);
}
