// The console's posting form, its pure parts (console/post-model.js): what the form's values become
// as the API's body (and the field problems the form finds itself), a draft as the form's values,
// the PATCH that saves a draft edited, and which field a problem's pointer is about, said with the
// field's own words.
// The console's files are plain browser modules without type declarations (served as they are).
// @ts-ignore
import { settings } from '../../console/format.js';
// @ts-ignore
import { areaOf, bodyOf, codeOf, emptyValues, fieldOf, labelOf, patchOf, placeText, problemsOf, valuesOf } from '../../console/post-model.js';

beforeAll(() => Object.assign(settings, { locale: 'en-GB', timeZone: 'Europe/Berlin' }));

const iso = (local: string) => new Date(local).toISOString();
const circle = { kind: 'circle', center: [4.4, 51.22], radiusKm: 40 };
const values = (more: Record<string, unknown> = {}) => ({
  ...emptyValues('offer', Date.parse('2026-12-06T10:30:00Z')),
  from: 'Gdańsk, Poland (PLGDN)',
  to: 'Antwerpen (BEANR)',
  firstStart: '2026-12-07T08:00', firstEnd: '2026-12-07T16:00', expires: '2026-12-07T08:00',
  ...more,
});

describe('a place field', () => {
  test('its code: in brackets after the name, or typed alone; its words without it', () => {
    expect(codeOf('Gdańsk, Poland (PLGDN)')).toBe('PLGDN');
    expect(codeOf('deham')).toBe('DEHAM');
    expect(codeOf('Hamburg')).toBeUndefined();
    expect(placeText('Gdansk (PLGDN)')).toBe('Gdansk');
  });

  test('its area: the circle drawn while the field shows its words, else the code', () => {
    const chosen = { area: circle, text: '40 km around 51.22° N, 4.40° E' };
    expect(areaOf('40 km around 51.22° N, 4.40° E', chosen)).toBe(circle);
    expect(areaOf('Antwerpen (BEANR)', chosen)).toEqual({ kind: 'unlocode', code: 'BEANR' });
    expect(areaOf('Antwerpen', null)).toBeUndefined();
  });
});

describe('the body of the create', () => {
  test('a new form: tomorrow from the next full hour for eight hours, listed until it begins, a truck seen by all', () => {
    const v = emptyValues('request', new Date(2026, 11, 6, 10, 30).getTime());
    expect(v).toMatchObject({ kind: 'request', firstStart: '2026-12-07T10:00', firstEnd: '2026-12-07T18:00', secondStart: '2026-12-07T18:00', secondEnd: '2026-12-08T18:00', expires: '2026-12-07T10:00', body: 'curtainsider', visibility: 'open', equipment: [] });
  });

  test('a truck: its places, window, capacity in units, body and equipment, goods it takes, price and visibility', () => {
    const made = bodyOf(values({ weight: '20', pallets: '30', body: 'tanker', price: '1150', adr: '3; 8 3', equipment: ['straps', 'tailLift'], tempMin: '2', tempMax: '8', visibility: 'partners', partners: ['org-baltic'] }), {}, 'Europe/Warsaw');
    expect(made).toEqual({
      path: '/capacity-offers',
      body: {
        availabilityWindow: { start: iso('2026-12-07T08:00'), end: iso('2026-12-07T16:00'), timeZone: 'Europe/Warsaw' },
        originArea: { kind: 'unlocode', code: 'PLGDN' },
        destinationArea: { kind: 'unlocode', code: 'BEANR' },
        vehicleProfile: { bodyType: 'tanker', equipment: ['tailLift', 'straps'] },
        availableCapacity: { weight: { value: 20, unitCode: 'TNE' }, palletSpaces: 30 },
        constraints: { dangerousGoods: { adrClasses: ['3', '8'] }, temperature: { minCelsius: 2, maxCelsius: 8 } },
        expiresAt: iso('2026-12-07T08:00'),
        visibility: { mode: 'partners', organizationIds: ['org-baltic'] },
        restrictedDetails: { price: { amount: 1150, currency: 'EUR' } },
      },
    });
  });

  test('a load: its delivery window, body wanted, UN numbers among the restricted details; a circle drawn for its delivery', () => {
    const chosen = { to: { area: circle, text: '40 km around Antwerpen' } };
    const made = bodyOf(values({ kind: 'request', to: '40 km around Antwerpen', secondStart: '2026-12-08T08:00', secondEnd: '2026-12-08T12:00', ldm: '6.8', adr: '3', un: '1203, UN 1993, 1203' }), chosen, 'Europe/Berlin');
    expect(made.path).toBe('/load-requests');
    expect(made.body).toMatchObject({
      pickupArea: { kind: 'unlocode', code: 'PLGDN' },
      deliveryArea: circle,
      deliveryWindow: { start: iso('2026-12-08T08:00'), end: iso('2026-12-08T12:00'), timeZone: 'Europe/Berlin' },
      requiredCapacity: { loadingMetres: { value: 6.8, unitCode: 'MTR' } },
      vehicleRequirements: { bodyTypes: ['curtainsider'] },
      goodsProfile: { category: 'general' },
      handlingRequirements: { dangerousGoods: { adrClasses: ['3'] } },
      restrictedDetails: { goodsDetails: { unNumbers: ['1203', '1993'] } },
      visibility: { mode: 'open' },
    });
  });

  test('what cannot be read is a problem of its field, with the pointer the broker would give', () => {
    const made = bodyOf(values({ kind: 'request', from: 'Gdansk', adr: '3, 11', un: '12A4', tempMin: '2', visibility: 'partners', partners: [] }));
    expect(made.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/pickupArea', '/visibility', '/handlingRequirements/dangerousGoods', '/restrictedDetails/goodsDetails/unNumbers', '/handlingRequirements/temperature']);
    expect(made.errors[2].message).toMatch(/names classes ADR does not have: 11/);
    expect(made.errors[3].message).toMatch(/UN numbers have four digits: 12A4/);
  });
});

describe("a problem's pointers, at their fields", () => {
  test('which field a pointer is about, offer and request fields alike', () => {
    expect(fieldOf('/originArea/code')).toBe('from');
    expect(fieldOf('/deliveryArea')).toBe('to');
    expect(fieldOf('/pickupWindow/start')).toBe('first');
    expect(fieldOf('/deliveryWindow/end')).toBe('second');
    expect(fieldOf('/availableCapacity/weight/value')).toBe('capacity');
    expect(fieldOf('/vehicleRequirements/bodyTypes/0')).toBe('body');
    expect(fieldOf('/expiresAt')).toBe('expires');
    expect(fieldOf('/visibility/organizationIds')).toBe('visibility');
    expect(fieldOf('/restrictedDetails/goodsDetails/unNumbers')).toBe('goods');
    expect(fieldOf('/restrictedDetails/price/amount')).toBe('price');
    expect(fieldOf('/constraints/temperature')).toBe('goods');
    expect(fieldOf('/ownerOrganizationId')).toBeUndefined();
    expect(labelOf('first', 'offer')).toBe('Available from');
    expect(labelOf('first', 'request')).toBe('Pickup from');
  });

  test("said with the field's words and the pointer's rest; the summary points at the fields, or gives the detail", () => {
    const refused = problemsOf({ title: 'Not published', detail: 'expired', errors: [{ pointer: '/expiresAt', message: 'must be in the future' }, { pointer: '/availableCapacity/weight/value', message: 'must be >= 0' }, { pointer: '/availableCapacity/palletSpaces', message: 'must be an integer' }] }, 'offer');
    expect(refused.fields).toEqual({ expires: 'Listed until must be in the future.', capacity: 'Capacity (weight value) must be >= 0. Capacity (palletSpaces) must be an integer.' });
    expect(refused.summary).toBe('Not published: see the fields marked above.');
    expect(problemsOf({ detail: 'the version moved on' }, 'offer', 'Not saved')).toEqual({ fields: {}, summary: 'Not saved: the version moved on' });
  });

  test("a merge patch's null alternatives are left out beside the real problem", () => {
    const { fields } = problemsOf({ title: 'Invalid', errors: [{ pointer: '/constraints', message: 'must be null' }, { pointer: '/constraints', message: 'must match exactly one schema in oneOf' }, { pointer: '/constraints/temperature/minCelsius', message: 'must be <= 40' }] }, 'offer');
    expect(fields).toEqual({ goods: 'What the truck can carry (temperature minCelsius) must be <= 40.' });
  });
});

describe('a draft edited', () => {
  const draft = {
    kind: 'offer', id: 'co-1', resourceVersion: 2, ownerOrganizationId: 'org-alpine', status: 'draft',
    availabilityWindow: { start: iso('2026-12-07T08:00'), end: iso('2026-12-07T16:00') },
    originArea: { kind: 'unlocode', code: 'PLGDN' }, destinationArea: circle,
    vehicleProfile: { bodyType: 'tanker', equipment: ['straps'], heightMetres: 4 },
    availableCapacity: { weight: { value: 18000, unitCode: 'KGM' }, palletSpaces: 30, volume: { value: 90, unitCode: 'MTQ' } },
    constraints: { dangerousGoods: { adrClasses: ['3'] } },
    restrictedDetails: { price: { amount: 900, currency: 'EUR' }, reference: 'T-12' },
    expiresAt: iso('2026-12-07T06:00'),
    visibility: { mode: 'partners', organizationIds: ['org-baltic'] },
  };

  test('the form filled with it: a code after its place name, a circle in words (kept as the area), weight in tonnes', () => {
    const { values: v, chosen } = valuesOf(draft, { PLGDN: { name: 'Gdańsk' } });
    expect(v).toMatchObject({ kind: 'offer', from: 'Gdańsk (PLGDN)', firstStart: '2026-12-07T08:00', firstEnd: '2026-12-07T16:00', secondStart: '', weight: '18', pallets: '30', ldm: '', body: 'tanker', price: '900', adr: '3', un: '', equipment: ['straps'], expires: '2026-12-07T06:00', visibility: 'partners', partners: ['org-baltic'] });
    expect(chosen.from).toBeNull();
    expect(chosen.to).toEqual({ area: circle, text: v.to });
    expect(v.to).toMatch(/^40 km around/);
  });

  test('its PATCH: the form laid over what it holds beyond it; a member emptied is removed', () => {
    const { values: v, chosen } = valuesOf(draft, {});
    const made = bodyOf({ ...v, weight: '20', pallets: '', adr: '', price: '', equipment: [] }, chosen, 'Europe/Berlin');
    const patch = patchOf(draft, made);
    expect(patch.vehicleProfile).toEqual({ bodyType: 'tanker', heightMetres: 4 });
    expect(patch.availableCapacity).toEqual({ weight: { value: 20, unitCode: 'TNE' }, volume: { value: 90, unitCode: 'MTQ' } });
    expect(patch.constraints).toBeNull();
    expect(patch.restrictedDetails).toEqual({ reference: 'T-12' });
    expect(patch.destinationArea).toBe(circle);
    expect(patch.originArea).toEqual({ kind: 'unlocode', code: 'PLGDN' });
  });
});
