// The EDIFACT service layer (gateway/edifact/service.ts) against ISO 9735's rules and real
// interchanges (test/fixtures/edifact/SOURCES.md): the UNA service characters, with any separators
// and a decimal comma; syntax version 4's repetitions and its default repetition separator; level
// B's information separators; the character sets the UNB names (UNOD as Latin-2, UNOW as UTF-8);
// functional groups; and what the tokenizer refuses, with CONTRL's code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { decodeInterchange, numberOf, serviceCharactersOf, tokenize, TokenizeError } from '../../gateway/edifact/service';
import { readInterchange } from '../../gateway/edifact/syntax';
import { BARGE, fixture } from '../edifact-fixtures';

/** A real interchange with its separators replaced, and a UNA that says so: the same message in another sender's hand. */
function rewritten(text: string, to: { component: string; element: string; release: string; terminator: string }): string {
  const body = text.replace(/^UNA.{6}\n?/, '');
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '?') {
      out += to.release + body[++i];
      continue;
    }
    out += ch === ':' ? to.component : ch === '+' ? to.element : ch === "'" ? to.terminator : [to.component, to.element, to.release, to.terminator].includes(ch) ? to.release + ch : ch;
  }
  return `UNA${to.component}${to.element}.${to.release} ${to.terminator}${out}`;
}

describe('the UNA service string advice', () => {
  it('reads a real interchange written with other separators exactly as with the default ones', () => {
    const original = readInterchange(fixture(BARGE));
    const other = readInterchange(rewritten(fixture(BARGE), { component: '|', element: '*', release: '\\', terminator: '~' }));
    expect(other.problems).toEqual([]);
    expect(other.interchange!.characters).toEqual(expect.objectContaining({ component: '|', element: '*', release: '\\', terminator: '~' }));
    expect(other.interchange!.messages.map((m) => m.segments.map((s) => s.elements))).toEqual(original.interchange!.messages.map((m) => m.segments.map((s) => s.elements)));
  });

  it("takes Bring's comma as the decimal mark, and a number written either way", () => {
    expect(serviceCharactersOf(fixture('iftmin_d00b_bring-big14-ig-dgs-tmp_apimeister.edi')).characters.decimal).toBe(',');
    expect(numberOf('1,5')).toBe(1.5);
    expect(numberOf('1.5')).toBe(1.5);
    expect(numberOf(',5')).toBe(0.5);
    expect(numberOf('-12')).toBe(-12);
    // Triad separators are not EDIFACT: a number with two marks is no number.
    for (const bad of ['1.000,5', '1 000', '', '12a', '.', undefined]) expect(numberOf(bad)).toBeNaN();
  });

  it('refuses a UNA that names one character for two purposes, or is cut short', () => {
    expect(() => serviceCharactersOf("UNA::.? 'UNB")).toThrow(expect.objectContaining({ code: '20' }));
    expect(() => serviceCharactersOf('UNA:+')).toThrow(TokenizeError);
    expect(() => serviceCharactersOf("UNA:+;? 'UNB")).toThrow(/decimal mark/);
  });

  it('a space is no release character or repetition separator: syntax 3 reserves the position', () => {
    const { characters } = serviceCharactersOf("UNA:+.  'UNB+UNOC:3'");
    expect(characters.release).toBeUndefined();
    expect(characters.repetition).toBeUndefined();
    expect(tokenize("UNA:+.  'UNB+UNOC:3+A?B'").segments[0].elements[1]).toEqual(['A?B']);
  });
});

describe('syntax version 4', () => {
  it('splits a repeated element (the default repetition separator *) into its occurrences', () => {
    const { segments } = tokenize("UNB+UNOY:4+S+R+20261206:1200+1'RFF+CU:1*ON:2*BM:3'UNZ+0+1'");
    expect(segments[1]).toEqual(expect.objectContaining({ tag: 'RFF', elements: [['CU', '1']], repetitions: { 0: [['ON', '2'], ['BM', '3']] } }));
  });

  it('takes * as data in syntax 3, where it separates nothing', () => {
    const { segments } = tokenize("UNB+UNOC:3+S+R+261206:1200+1'FTX+AAI+++5*6'UNZ+0+1'");
    expect(segments[1].elements[3]).toEqual(['5*6']);
  });

  it('reads the repetition separator a UNA names, and a released one as data', () => {
    const { segments } = tokenize("UNA:+.?^'UNB+UNOW:4+S+R+20261206:1200+1'RFF+CU:1^ON:2?^3'UNZ+0+1'");
    expect(segments[1].repetitions).toEqual({ 0: [['ON', '2^3']] });
  });

  it('reads a UTF-8 (UNOW) interchange with its date of eight digits and no problem', () => {
    const text = "UNA:+.? 'UNB+UNOW:4+SENDER+GATEWAY+20261206:1200+REF1'UNH+1+IFTSTA:D:04A:UN'BGM+77+Zürich–Łódź+9'UNT+3+1'UNZ+1+REF1'";
    const { interchange, problems } = readInterchange(decodeInterchange(Buffer.from(text, 'utf8')));
    expect(problems).toEqual([]);
    expect(interchange!.syntax).toEqual({ identifier: 'UNOW', version: '4' });
    expect(interchange!.messages[0].segments[1].elements[1]).toEqual(['Zürich–Łódź']);
  });
});

describe('character sets', () => {
  it('decodes UNOD as ISO 8859-2 (Latin-2: Polish, Czech, Hungarian), never as Latin-1', () => {
    const text = "UNB+UNOD:3+S+R+261206:1200+1'NAD+CZ+++Przedsiębiorstwo Łódź+Żółkiewskiego 12+Kraków'UNZ+0+1'";
    const bytes = iconv.encode(text, 'iso-8859-2');
    expect(bytes.toString('latin1')).not.toContain('Łódź');
    expect(decodeInterchange(bytes)).toContain('Przedsiębiorstwo Łódź+Żółkiewskiego 12+Kraków');
  });

  it('decodes the sets of ISO 8859 the UNB names: Cyrillic (UNOE), Greek (UNOF), Turkish (UNOK)', () => {
    const cases: Array<[string, string, string]> = [['UNOE', 'iso-8859-5', 'Москва'], ['UNOF', 'iso-8859-7', 'Πειραιάς'], ['UNOK', 'iso-8859-9', 'İzmit Körfezi']];
    for (const [set, encoding, place] of cases) {
      expect(decodeInterchange(iconv.encode(`UNB+${set}:3+S+R+261206:1200+1'LOC+5+++${place}'`, encoding))).toContain(place);
    }
  });

  it('refuses a character set it cannot read (UNOX, code extension) with CONTRL code 2', () => {
    const { problems } = readInterchange("UNB+UNOX:3+S+R+261206:1200+1'UNZ+0+1'");
    expect(problems[0]).toEqual(expect.objectContaining({ code: '2' }));
  });

  it('reads a byte order mark before the interchange as nothing', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(fixture(BARGE), 'latin1')]);
    expect(readInterchange(decodeInterchange(bytes)).problems).toEqual([]);
  });
});

describe('level B and layout', () => {
  it("reads level B's information separators (no UNA, no release character)", () => {
    const [US, GS, FS] = ['\u001f', '\u001d', '\u001c'];
    const text = `UNB${GS}UNOB${US}3${GS}S${GS}R${GS}261206${US}1200${GS}1${FS}LOC${GS}9${GS}NLRTM${US}${US}6${FS}UNZ${GS}0${GS}1${FS}`;
    const { segments } = tokenize(text);
    expect(segments.map((s) => s.tag)).toEqual(['UNB', 'LOC', 'UNZ']);
    expect(segments[1].elements).toEqual([['9'], ['NLRTM', '', '6']]);
  });

  it('reads segments one per line (LF, CRLF, indented) and a last segment without its terminator', () => {
    const lines = fixture(BARGE).replace(/\n/g, '\r\n  ').replace(/'\s*$/, '');
    const { interchange, problems } = readInterchange(lines);
    expect(problems).toEqual([]);
    expect(interchange!.reference).toBe('025647');
  });

  it('refuses a control character inside a value (CONTRL 21, invalid character) and a release at the very end', () => {
    expect(() => tokenize("UNB+UNOC:3+S\u0007+R'")).toThrow(expect.objectContaining({ code: '21' }));
    expect(() => tokenize("UNB+UNOC:3+S+R?")).toThrow(/release character/);
  });
});

describe('functional groups', () => {
  const grouped = (une: string) =>
    `UNA:+.? 'UNB+UNOC:3+S+R+261206:1200+7'UNG+IFTMIN+S+R+261206:1200+G1+UN+D:04A'UNH+1+IFTMIN:D:04A:UN'BGM+610+A+9'UNT+3+1'${une}UNZ+1+7'`;

  it('reads the messages of a UNG/UNE group; the UNZ then counts groups', () => {
    const { interchange, problems } = readInterchange(grouped("UNE+1+G1'"));
    // The message itself lacks what an IFTMIN must have (its NAD): the envelope has no problem.
    expect(problems.filter((p) => !p.messageReference)).toEqual([]);
    expect(interchange!.messages.map((m) => m.type)).toEqual(['IFTMIN']);
  });

  it("finds a UNE whose count or reference disagrees with its group, where it is", () => {
    const { problems } = readInterchange(grouped("UNE+2+G9'"));
    expect(problems).toEqual(expect.arrayContaining([expect.objectContaining({ position: 'segment 6 (UNE), element 1' }), expect.objectContaining({ position: 'segment 6 (UNE), element 2' })]));
  });
});

describe('interchanges from other public sources (test/fixtures/edifact/SOURCES.md)', () => {
  const read = (name: string) => readInterchange(decodeInterchange(readFileSync(join(__dirname, '..', 'fixtures', 'edifact', name))));

  it('reads each without a problem of syntax or envelope: other separators, syntax 4, groups, Latin-2, wrapped lines, a security message', () => {
    for (const name of [
      'invoic_d97b_una-eq-star-tilde_staedi.edi', // UNA=*.? ~
      'invoic_d03b_unoc4-repetition_smooks.edi', // UNOC:4, the repetition separator * declared and used
      'paxlst_d03b_cbp-ace-syntax4-ung_smooks.edi', // UNOA:4 without UNA (* by default), UNG/UNE
      'invoic_d96a_unod-novaservis-dedeman_underware.edi', // UNOD:3, one line, no final terminator
      'orders_d93a_obi-cz-wrapped-998_underware.edi', // a line feed every 998 characters, inside segments
      'autack_d94a_editel-cz-signature_underware.edi', // AUTACK: USH…USR service segments
      'invoic_d93a_decimal-comma_staedi.edi', // decimal comma
    ]) {
      const { interchange, problems } = read(name);
      expect({ name, problems }).toEqual({ name, problems: [] });
      expect(interchange!.messages.length).toBeGreaterThan(0);
    }
  });

  it("splits Smooks' repeated CUX element into its occurrences (syntax 4)", () => {
    const { interchange } = read('invoic_d03b_unoc4-repetition_smooks.edi');
    const cux = interchange!.messages[0].segments.find((s) => s.tag === 'CUX')!;
    expect(cux.repetitions).toBeDefined();
  });

  it('takes the comma a UNA declares as the decimal mark of the numbers written with it', () => {
    const { interchange } = read('invoic_d93a_decimal-comma_staedi.edi');
    expect(interchange!.characters.decimal).toBe(',');
    const amounts = interchange!.messages[0].segments.filter((s) => s.tag === 'MOA').map((s) => numberOf(s.elements[0][1]));
    expect(amounts).toContain(777.4);
  });

  it("reads a DGFiP interchange behind Sage COALA's header line, and refuses a character set no standard names (UNOL, UNOZ) with CONTRL 2", () => {
    const sage = read('infent_d00b_dgfip-tdfc-sage-coala_pydifact.edi');
    expect(sage.problems[0]).toEqual(expect.objectContaining({ code: '2', message: expect.stringContaining('UNOL') }));
    expect(read('ifcsum_d97b_finnlines-ro-ro-cars_leksiqq.edi').problems).toEqual([expect.objectContaining({ code: '2', message: expect.stringContaining('UNOZ') })]);
  });
});
