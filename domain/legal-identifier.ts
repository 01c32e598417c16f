// An organization's legal identifier, checked by form and check digits before the operator
// registers it (issue 29; docs/decisions.md, "Organizations as records"):
//   LEI   ISO 17442: 18 alphanumerics and 2 check digits, ISO 7064 MOD 97-10 over the whole code.
//   VAT   an EU VAT identification number with its country prefix (EL for Greece), or GB, CH, NO:
//         each country's own form and check digits, by stdnum (python-stdnum's rules in JavaScript).
//   EORI  Economic Operators Registration and Identification: a country code and up to 15
//         alphanumerics (Regulation (EU) No 1352/2013); the EU publishes no check digit, so the
//         form alone is checked (its existence is the EU's EOS service's to confirm: verification).
// Pure and free of Node imports, but only the API imports it (stdnum stays out of the workflow bundle).
import { euVat, stdnum } from 'stdnum';

export type LegalIdentifierScheme = 'LEI' | 'VAT' | 'EORI';
export const LEGAL_IDENTIFIER_SCHEMES: readonly LegalIdentifierScheme[] = ['LEI', 'VAT', 'EORI'];

export interface LegalIdentifier {
  scheme: LegalIdentifierScheme;
  value: string;
}

/** The identifier in its compact form (upper case, no spaces, dots or dashes), or why it is not one. */
export function checkLegalIdentifier(id: { scheme: string; value: string }): { ok: true; value: string } | { ok: false; reason: string } {
  const value = String(id.value).toUpperCase().replace(/[\s.\-/]/g, '');
  switch (id.scheme) {
    case 'LEI':
      if (!/^[A-Z0-9]{18}[0-9]{2}$/.test(value)) return { ok: false, reason: 'an LEI is 18 letters or digits and 2 check digits (ISO 17442)' };
      return mod97(value) === 1 ? { ok: true, value } : { ok: false, reason: 'the LEI check digits do not match (ISO 17442, ISO 7064 MOD 97-10)' };
    case 'VAT': {
      const prefix = value.slice(0, 2);
      const validators = euVat[prefix === 'EL' ? 'GR' : prefix] ?? (stdnum[prefix]?.vat ? [stdnum[prefix].vat] : undefined);
      if (!validators) return { ok: false, reason: 'a VAT number starts with its country prefix (an EU member state, GB, CH or NO)' };
      const valid = validators.some((v) => v.validate(value).isValid);
      return valid ? { ok: true, value } : { ok: false, reason: `not a valid ${prefix} VAT number (form or check digits)` };
    }
    case 'EORI':
      return /^[A-Z]{2}[A-Z0-9]{1,15}$/.test(value) ? { ok: true, value } : { ok: false, reason: 'an EORI number is a country code and up to 15 letters or digits' };
    default:
      return { ok: false, reason: `the scheme is one of ${LEGAL_IDENTIFIER_SCHEMES.join(', ')}` };
  }
}

/** ISO 7064 MOD 97-10: letters count as 10..35; the remainder of the whole number by 97. */
function mod97(code: string): number {
  let rest = 0;
  for (const ch of code) {
    const digits = /[0-9]/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest;
}
