// Legal identifiers (domain/legal-identifier.ts) against published ones: LEIs of GLEIF's register
// (Apple Inc., Deutsche Bank AG, Deutsche Börse AG, Bloomberg Finance L.P., and one of the UK's
// London Stock Exchange pre-LOU 2138 range) and VAT numbers of python-stdnum's and the EU VIES
// documentation's examples; each with one digit changed, which the check digits must catch.
import { checkLegalIdentifier } from '../../domain/legal-identifier';

const LEIS = ['HWUPKR0MPOU8FGXBT394', '7LTWFZYICNSX8D621K86', '529900T8BM49AURSDO55', '5493001KJTIIGC8Y1R12', '213800D1EI4B9WTWWD28'];
const VATS = ['DE136695976', 'NL004495445B01', 'ATU13585627', 'FR40303265045', 'EL094259216', 'BE0403019261', 'IT00743110157', 'SE556703748501', 'GB980780684'];

/** The code with one digit changed (a transcription error the check digits exist for): the last, or the one at `at`. */
const changed = (code: string, at = code.length - 1) => code.slice(0, at) + String((Number(code[at]) + 1) % 10) + code.slice(at + 1);

test('published LEIs pass ISO 17442 (MOD 97-10); a changed digit does not; any case and spacing is compacted', () => {
  for (const lei of LEIS) {
    expect(checkLegalIdentifier({ scheme: 'LEI', value: lei })).toEqual({ ok: true, value: lei });
    expect(checkLegalIdentifier({ scheme: 'LEI', value: changed(lei) }).ok).toBe(false);
  }
  expect(checkLegalIdentifier({ scheme: 'LEI', value: 'hwup kr0m-pou8 fgxb t394' })).toEqual({ ok: true, value: 'HWUPKR0MPOU8FGXBT394' });
  expect(checkLegalIdentifier({ scheme: 'LEI', value: 'HWUPKR0MPOU8FGXBT3' }).ok).toBe(false);
  expect(checkLegalIdentifier({ scheme: 'LEI', value: 'HWUPKR0MPOU8FGXBT3AB' }).ok).toBe(false);
});

test('published VAT numbers pass their country\u2019s check; a changed digit and an unknown prefix do not', () => {
  for (const vat of VATS) {
    expect(checkLegalIdentifier({ scheme: 'VAT', value: vat })).toEqual({ ok: true, value: vat });
    // The sixth character is a digit of the number in each (the last of NL's is a branch suffix, unchecked).
    expect(checkLegalIdentifier({ scheme: 'VAT', value: changed(vat, 5) }).ok).toBe(false);
  }
  expect(checkLegalIdentifier({ scheme: 'VAT', value: 'XX123456789' })).toEqual({ ok: false, reason: expect.stringContaining('country prefix') });
});

test('EORI: a country code and up to 15 letters or digits; the scheme must be one of three', () => {
  expect(checkLegalIdentifier({ scheme: 'EORI', value: 'de 1234567' })).toEqual({ ok: true, value: 'DE1234567' });
  expect(checkLegalIdentifier({ scheme: 'EORI', value: 'GB123456789000' }).ok).toBe(true);
  expect(checkLegalIdentifier({ scheme: 'EORI', value: '123456' }).ok).toBe(false);
  expect(checkLegalIdentifier({ scheme: 'EORI', value: 'DE1234567890123456' }).ok).toBe(false);
  expect(checkLegalIdentifier({ scheme: 'DUNS', value: '150483782' }).ok).toBe(false);
});
