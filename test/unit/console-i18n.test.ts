// The console's languages (console/format.js): one catalogue, English, German and Polish, with the
// same keys and placeholders in each; the language chosen from the browser's or the picker; every
// converted module speaking German and Polish; numbers, dates, units and plurals per locale.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
// The console's files are plain browser modules without type declarations (served as they are).
// @ts-ignore
import { CATALOGUE, LANGUAGES, translatePage, capacityOf, chooseLocale, connectorScopesOf, criterionName, distanceModelText, localName, explanationOf, language, languageOf, moneyOf, mountLanguagePicker, palletsOf, placeOf, settings, statusOf, t, when, windowOf } from '../../console/format.js';
// @ts-ignore
import { rowOf, filterRows } from '../../console/grid-model.js';
// @ts-ignore
import { createSession, SessionEnded } from '../../console/session.js';
// @ts-ignore
import { createApi, ProblemError } from '../../console/api.js';
// @ts-ignore
import { scopeWords } from '../../console/partners.js';
// @ts-ignore
import { statusWord, verificationText } from '../../console/organization.js';
// @ts-ignore
import { heldTitle } from '../../console/adapters.js';
// @ts-ignore
import { co2eText, kmText, tkmText, tonneText } from '../../console/delivered.js';

const CONSOLE_DIR = join(__dirname, '..', '..', 'console');
type Message = string | Record<string, string>;
const catalogue = CATALOGUE as Record<string, Record<string, Message>>;

const speak = (locale: string) => Object.assign(settings, { locale, timeZone: 'Europe/Berlin' });
afterAll(() => speak('en-GB'));

const placeholders = (m: Message) => new Set((typeof m === 'string' ? [m] : Object.values(m)).flatMap((s) => [...s.matchAll(/\{(\w+)\}/g)].map((x) => x[1])));

describe('the catalogue', () => {
  test('English, German and Polish, each with every key, the same placeholders, no empty message', () => {
    expect(Object.keys(catalogue).sort()).toEqual(Object.keys(LANGUAGES).sort());
    const keys = Object.keys(catalogue.en).sort();
    expect(keys.length).toBeGreaterThan(300);
    for (const lang of ['de', 'pl']) {
      expect({ lang, missing: keys.filter((k) => !(k in catalogue[lang])) }).toEqual({ lang, missing: [] });
      expect({ lang, extra: Object.keys(catalogue[lang]).filter((k) => !(k in catalogue.en)) }).toEqual({ lang, extra: [] });
      for (const key of keys) {
        expect({ key, lang, placeholders: [...placeholders(catalogue[lang][key])].sort() }).toEqual({ key, lang, placeholders: [...placeholders(catalogue.en[key])].sort() });
      }
    }
    for (const [lang, messages] of Object.entries(catalogue)) {
      for (const [key, m] of Object.entries(messages)) {
        for (const text of typeof m === 'string' ? [m] : Object.values(m)) expect({ lang, key, empty: text.trim() === '' }).toEqual({ lang, key, empty: false });
      }
    }
  });

  test('no key written twice in a language (the later one would silently win)', () => {
    // One file per language (console/i18n/): its keys as written, each once.
    for (const lang of Object.keys(LANGUAGES)) {
      const source = readFileSync(join(CONSOLE_DIR, 'i18n', `${lang}.json`), 'utf8');
      const keys = [...source.matchAll(/^ {2}"([^"]+)":/gm)].map((m) => m[1]);
      expect({ lang, twice: keys.filter((k, n) => keys.indexOf(k) !== n) }).toEqual({ lang, twice: [] });
      expect(keys.length).toBe(Object.keys(catalogue[lang]).length);
    }
  });

  test("plural messages have every form their language's plural rules select", () => {
    for (const [lang, messages] of Object.entries(catalogue)) {
      const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
      for (const [key, m] of Object.entries(messages)) {
        if (typeof m === 'string') continue;
        expect({ lang, key, forms: Object.keys(m).sort() }).toEqual({ lang, key, forms: [...categories].sort() });
      }
    }
  });

  test('every key the console passes to t() is in the catalogue (keys built from a template: at least one)', () => {
    const files = readdirSync(CONSOLE_DIR).filter((f) => f.endsWith('.js'));
    const used: { file: string; key: string }[] = [];
    for (const file of files) {
      const source = readFileSync(join(CONSOLE_DIR, file), 'utf8');
      for (const m of source.matchAll(/(?<![\w.$])t\(\s*(['"`])((?:(?!\1).)+)\1/g)) used.push({ file, key: m[2] });
    }
    expect(used.length).toBeGreaterThan(100);
    const known = Object.keys(catalogue.en);
    for (const { file, key } of used) {
      const pattern = new RegExp(`^${key.split(/\$\{[^}]*\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^]+?')}$`);
      expect({ file, key, found: known.some((k) => pattern.test(k)) }).toEqual({ file, key, found: true });
    }
  });
});

describe('choosing the language', () => {
  test("the stored choice, else the first of the browser's languages the console speaks, else English; the browser's region kept for formatting", () => {
    expect(chooseLocale(undefined, ['pl-PL', 'en-US'])).toBe('pl-PL');
    expect(chooseLocale(undefined, ['fr-FR', 'de-AT', 'en'])).toBe('de-AT');
    expect(chooseLocale(undefined, ['fr-FR'])).toBe('en');
    expect(chooseLocale('de', ['en-GB'])).toBe('de');
    expect(chooseLocale('en', ['pl', 'en-GB'])).toBe('en-GB');
    expect(chooseLocale('xx', ['de-CH'])).toBe('de-CH');
    expect([languageOf('de-AT'), languageOf('pl'), languageOf('fr-FR'), languageOf(undefined)]).toEqual(['de', 'pl', 'en', 'en']);
  });

  test('the picker lists the languages by their own names, sets <html lang> and keeps the choice', () => {
    // A document just large enough for the picker (the unit project has no DOM).
    const listeners: Record<string, () => void> = {};
    const node = (tag: string): any => ({ tag, children: [] as any[], append(...c: any[]) { this.children.push(...c); }, addEventListener: (type: string, fn: () => void) => (listeners[type] = fn) });
    const stored = new Map<string, string>();
    Object.assign(globalThis, { document: { createElement: node, documentElement: { lang: 'en' } }, window: { localStorage: { setItem: (k: string, v: string) => stored.set(k, v), getItem: (k: string) => stored.get(k) } } });
    try {
      speak('en-GB');
      const container = node('div');
      const chosen: string[] = [];
      const select = mountLanguagePicker(container, { onChange: (lang: string) => chosen.push(lang) });
      const [label] = container.children;
      expect(label.textContent).toBe('Language');
      expect(select.children.map((o: any) => [o.value, o.textContent, o.lang])).toEqual([['en', 'English', 'en'], ['de', 'Deutsch', 'de'], ['pl', 'Polski', 'pl']]);
      expect(select.value).toBe('en');
      select.value = 'pl';
      listeners.change();
      expect(chosen).toEqual(['pl']);
      expect(language()).toBe('pl');
      expect((globalThis as any).document.documentElement.lang).toBe('pl');
      expect(stored.get('pcx-console-language')).toBe('pl');
      expect(t('language.label')).toBe('Język');
    } finally {
      delete (globalThis as any).document;
      delete (globalThis as any).window;
      speak('en-GB');
    }
  });
});

test("translatePage: the page's marked elements and attributes in the language", () => {
  const node = (attributes: Record<string, string>): any => ({ textContent: '', attributes: { ...attributes }, getAttribute(name: string) { return this.attributes[name]; }, setAttribute(name: string, value: string) { this.attributes[name] = value; } });
  const heading = node({ 'data-i18n': 'page.proposals' });
  const search = node({ 'data-i18n-placeholder': 'page.filter.searchPlaceholder' });
  const root = { querySelectorAll: (selector: string) => [heading, search].filter((n) => `data-${selector.slice(6, -1)}` in n.attributes) };
  speak('de-DE');
  translatePage(root);
  expect([heading.textContent, search.attributes.placeholder]).toEqual(['Vorschläge', 'Ort, Partner, Aufbau']);
  speak('pl-PL');
  translatePage(root);
  expect([heading.textContent, search.attributes.placeholder]).toEqual(['Propozycje', 'miejsce, partner, nadwozie']);
});

test("the page's HTML (console/index.html): every data-i18n key in the catalogue, its English the page's own text", () => {
  const page = readFileSync(join(CONSOLE_DIR, 'index.html'), 'utf8');
  const checked: { key: string; attribute: string; en: Message; page: string }[] = [];
  for (const tag of page.matchAll(/<\w+((?:\s[\w-]+(?:="[^"]*")?)*)\s*>([^<]*)/g)) {
    const attributes = Object.fromEntries([...tag[1].matchAll(/([\w-]+)(?:="([^"]*)")?/g)].map((a) => [a[1], a[2] ?? '']));
    for (const [name, key] of Object.entries(attributes)) {
      if (name === 'data-i18n') checked.push({ key, attribute: 'text', en: catalogue.en[key], page: tag[2] });
      else if (name.startsWith('data-i18n-')) checked.push({ key, attribute: name.slice(10), en: catalogue.en[key], page: attributes[name.slice(10)] });
    }
  }
  expect(checked.length).toBeGreaterThan(40);
  expect(checked.filter((c) => c.attribute === 'placeholder')).toHaveLength(2);
  for (const c of checked) expect(c).toEqual({ ...c, en: c.page });
  expect(page).toContain('<div id="language-slot" class="language"></div>');
});

describe('format.js in German and Polish', () => {
  test('capacity in units with the plural of pallets, numbers as the locale writes them', () => {
    const truck = { weight: { value: 24, unitCode: 'TNE' }, palletSpaces: 33, loadingMetres: { value: 13.6, unitCode: 'MTR' } };
    speak('en-GB');
    expect(capacityOf(truck)).toBe('24 t, 33 pallets, 13.6 ldm');
    expect(palletsOf(1)).toBe('1 pallet');
    speak('de-DE');
    expect(capacityOf(truck)).toBe('24 t, 33 Paletten, 13,6 LDM');
    expect([palletsOf(1), palletsOf(2)]).toEqual(['1 Palette', '2 Paletten']);
    expect(capacityOf({ weight: { value: 800, unitCode: 'KGM' }, volume: { value: 80.5, unitCode: 'MTQ' } })).toBe('800 kg, 80,5 m³');
    speak('pl-PL');
    expect(capacityOf(truck)).toBe('24 t, 33 palety, 13,6 LDM');
    expect([1, 2, 4, 5, 12, 21, 22, 25, 0].map(palletsOf)).toEqual(['1 paleta', '2 palety', '4 palety', '5 palet', '12 palet', '21 palet', '22 palety', '25 palet', '0 palet']);
  });

  test("dates and windows in the planner's zone, money, places and words", () => {
    speak('de-DE');
    expect(when('2026-12-12T07:00:00Z')).toBe('12.12.2026, 08:00 MEZ');
    expect(when('2026-07-01T07:00:00Z')).toBe('01.07.2026, 09:00 MESZ');
    expect(windowOf({ start: '2026-12-12T07:00:00Z', end: '2026-12-14T17:00:00Z' })).toBe('12. Dez., 08:00 – 14. Dez., 18:00 MEZ');
    expect(moneyOf({ amount: 875, currency: 'EUR' })).toBe('875,00\u00a0€');
    expect(placeOf({ kind: 'circle', center: [4.47, 51.92], radiusKm: 50 })).toBe('50 km um 51,92° N, 4,47° O');
    expect(placeOf({ kind: 'list', areas: [{ kind: 'country', code: 'NL' }, { kind: 'country', code: 'BE' }] })).toBe('Niederlande oder Belgien');
    expect([statusOf('partiallyMatched'), statusOf('pickedUp'), statusOf('curtainsider'), statusOf('somethingNew')]).toEqual(['teilweise vermittelt', 'geladen', 'Planenauflieger', 'something new']);
    expect(criterionName('capacity.weightKg')).toBe('Laderaum: Gewicht');
    speak('pl-PL');
    expect(when('2026-12-12T07:00:00Z')).toBe('12 gru 2026, 08:00 CET');
    expect(windowOf({ start: '2026-12-12T07:00:00Z', end: '2026-12-12T13:00:00Z' })).toBe('12 gru, 08:00 – 14:00 CET');
    expect(moneyOf({ amount: 875, currency: 'EUR' })).toBe('875,00\u00a0€');
    expect(placeOf({ kind: 'subdivision', code: 'DE-HH' })).toBe('DE-HH, Niemcy');
    expect(placeOf({ kind: 'subdivision', code: 'DE-BY' }, { 'DE-BY': { names: { en: 'Bavaria', de: 'Bayern', pl: 'Bawaria' } } })).toBe('Bawaria, Niemcy');
    expect(placeOf({ kind: 'list', areas: [{ kind: 'country', code: 'PL' }, { kind: 'country', code: 'CZ' }] })).toBe('Polska lub Czechy');
    expect([statusOf('partiallyMatched'), statusOf('delivered'), statusOf('refrigerated')]).toEqual(['częściowo dopasowane', 'dostarczone', 'chłodnia']);
  });

  test("a place by its name in the planner's language where the broker sent one, else as UN/LOCODE spells it", () => {
    const places = { PLWAW: { name: 'Warszawa', names: { en: 'Warsaw', de: 'Warschau', pl: 'Warszawa' } }, DEHAM: { name: 'Hamburg' } };
    const said = () => [placeOf({ kind: 'unlocode', code: 'PLWAW' }, places), placeOf({ kind: 'unlocode', code: 'DEHAM' }, places), localName({ name: 'Wien', names: { en: 'Vienna', de: 'Wien', pl: 'Wiedeń' } })];
    speak('de-DE');
    expect(said()).toEqual(['Warschau', 'Hamburg', 'Wien']);
    speak('pl-PL');
    expect(said()).toEqual(['Warszawa', 'Hamburg', 'Wiedeń']);
    speak('en-GB');
    expect(said()).toEqual(['Warsaw', 'Hamburg', 'Vienna']);
  });

  test("the broker's distance model (data: \"great-circle x 1.3\") in words and the locale's numbers; one it does not know as named", () => {
    speak('de-DE');
    expect(distanceModelText('great-circle x 1.3')).toBe('Luftlinie × 1,3 für den Straßenweg');
    speak('pl-PL');
    expect(distanceModelText('great-circle x 1.25')).toBe('w linii prostej × 1,25 na drogi');
    speak('en-GB');
    expect(distanceModelText('great-circle x 1.3')).toBe('as the crow flies × 1.3 for the roads');
    expect([distanceModelText('road network (OSRM)'), distanceModelText(undefined)]).toEqual(['road network (OSRM)', '']);
  });

  test('the explanation in sentences, with units, places and local times', () => {
    const proposal = {
      compatibility: [
        { criterion: 'pickupArea', result: 'pass', reasonCode: 'AREA_PICKUP_ON_ROUTE', figures: { pickupOffsetKm: 12, allowanceKm: 150 } },
        { criterion: 'timeWindow', result: 'fail', reasonCode: 'TRANSIT_TOO_SHORT', figures: { transitMinutes: 330, earliestPickup: '2026-12-12T07:00:00Z', latestDelivery: '2026-12-13T17:00:00Z' } },
        { criterion: 'capacity.weightKg', result: 'pass', reasonCode: 'CAPACITY_WEIGHT_FITS', figures: { required: 8000, remaining: 24000, unit: 'KGM' } },
        { criterion: 'capacity.palletSpaces', result: 'fail', reasonCode: 'CAPACITY_PALLET_SPACES_EXCEEDS', figures: { required: 34, remaining: 33 } },
        { criterion: 'bodyType', result: 'fail', reasonCode: 'BODY_TYPE_MISMATCH', figures: { offered: 'box', accepted: ['curtainsider'] } },
        { criterion: 'equipment', result: 'pass', reasonCode: 'EQUIPMENT_AVAILABLE', figures: {} },
        { criterion: 'temperature', result: 'notApplicable', reasonCode: 'TEMPERATURE_NOT_REQUIRED', figures: {} },
      ],
    };
    const ctx = { places: { DEHAM: { name: 'Hamburg' } }, request: { pickupArea: { kind: 'unlocode', code: 'DEHAM' }, deliveryArea: { kind: 'country', code: 'NL' } } };
    speak('de-DE');
    expect(explanationOf(proposal, ctx).map((s: { text: string }) => s.text)).toEqual([
      'Beladestelle Hamburg liegt 12 km abseits der Route des LKW (150 km zulässig).',
      'Beladung ab 12.12.2026, 08:00 MEZ, Zustellung bis 13.12.2026, 18:00 MEZ; die Fahrt dauert etwa 5,5 Stunden. Die Zeit reicht für die Fahrt nicht aus.',
      'Laderaum, Gewicht: 8 t benötigt, 24 t frei.',
      'Laderaum, Palettenstellplätze: 34 Paletten benötigt, 33 Paletten frei.',
      'Aufbau: Koffer (gewünscht: Planenauflieger).',
      'Ausrüstung: Ausrüstung vorhanden.',
      'Keine Temperaturführung nötig.',
    ]);
    speak('pl-PL');
    expect(explanationOf(proposal, ctx).map((s: { text: string }) => s.text)).toEqual([
      'Miejsce załadunku Hamburg leży 12 km od trasy pojazdu (dopuszczalne 150 km).',
      'Załadunek od 12 gru 2026, 08:00 CET, dostawa do 13 gru 2026, 18:00 CET; przejazd trwa około 5,5 godziny. Za mało czasu na przejazd.',
      'Ładowność, waga: potrzeba 8 t, wolne 24 t.',
      'Ładowność, miejsca paletowe: potrzeba 34 palety, wolne 33 palety.',
      'Nadwozie: kontener (wymagane: firanka).',
      'Wyposażenie: wyposażenie dostępne.',
      'Kontrola temperatury nie jest potrzebna.',
    ]);
    expect(explanationOf({ compatibility: [{ criterion: 'timeWindow', result: 'pass', reasonCode: 'TIME_WINDOW_FEASIBLE', figures: { transitMinutes: 120 } }] })[0].text).toContain('około 2 godziny');
    expect(explanationOf({ compatibility: [{ criterion: 'timeWindow', result: 'pass', reasonCode: 'TIME_WINDOW_FEASIBLE', figures: { transitMinutes: 300 } }] })[0].text).toContain('około 5 godzin');
  });
});

describe('the converted modules in German and Polish', () => {
  const listing = {
    id: 'l1', kind: 'request', status: 'partiallyMatched', ownerOrganizationId: 'org-b',
    pickupArea: { kind: 'unlocode', code: 'DEHAM' }, deliveryArea: { kind: 'unlocode', code: 'NLRTM' },
    pickupWindow: { start: '2026-12-12T07:00:00Z', end: '2026-12-12T13:00:00Z' },
    requiredCapacity: { weight: { value: 8000, unitCode: 'KGM' }, palletSpaces: 22 },
    vehicleRequirements: { bodyTypes: ['curtainsider', 'box'] },
  };
  const ctx = { places: { DEHAM: { name: 'Hamburg' }, NLRTM: { name: 'Rotterdam' } }, names: { 'org-b': 'Baltic Shippers AB' }, me: 'org-a' };

  test('grid-model.js: rows in the language, searchable by its words', () => {
    speak('de-DE');
    const de = rowOf(listing, ctx);
    expect([de.dates, de.capacity, de.body, de.statusText]).toEqual(['12. Dez., 08:00 – 14:00 MEZ', '8 t, 22 Paletten', 'Planenauflieger oder Koffer', 'teilweise vermittelt']);
    expect(filterRows([de], { status: 'all', text: 'ladung koffer' }, ctx.places)).toHaveLength(1);
    speak('pl-PL');
    const pl = rowOf(listing, ctx);
    expect([pl.dates, pl.capacity, pl.body, pl.statusText]).toEqual(['12 gru, 08:00 – 14:00 CET', '8 t, 22 palety', 'firanka lub kontener', 'częściowo dopasowane']);
    expect(filterRows([pl], { status: 'all', text: 'ładunek firanka' }, ctx.places)).toHaveLength(1);
  });

  test('session.js and api.js: an ended session and a kept command refused, in words', async () => {
    const kept = new Map<string, string>();
    Object.assign(globalThis, { sessionStorage: { setItem: (k: string, v: string) => kept.set(k, v), getItem: (k: string) => kept.get(k) ?? null, removeItem: (k: string) => kept.delete(k) } });
    try {
      const session = createSession({});
      speak('de-DE');
      expect(new SessionEnded().message).toBe('Ihre Sitzung ist beendet: Melden Sie sich erneut an, um fortzufahren.');
      session.keep({ method: 'POST', path: '/x', userId: 'vera' });
      expect(session.takeKept('bruno').refused).toBe('es wurde von vera geklickt, nicht von Ihnen');
      speak('pl-PL');
      expect(new SessionEnded().message).toBe('Twoja sesja wygasła: zaloguj się ponownie, aby kontynuować.');
      session.keep({ method: 'POST', path: '/x', userId: 'vera' });
      expect(session.takeKept('bruno').refused).toBe('kliknął to vera, a nie Ty');
      // A proxy's error page, not a problem of the broker's: its status in words, not the page.
      const realFetch = globalThis.fetch;
      Object.assign(globalThis, { location: { origin: 'http://broker.test' }, fetch: async () => new Response('<html>upstream broke</html>', { status: 500 }) });
      const api = createApi({ token: async () => 'token' });
      const refused = await api.get('/capacity-offers').catch((e: unknown) => e);
      globalThis.fetch = realFetch;
      expect(refused).toBeInstanceOf(ProblemError);
      expect((refused as InstanceType<typeof ProblemError>).problem).toMatchObject({ title: 'HTTP 500', status: 500 });
      expect((refused as InstanceType<typeof ProblemError>).problem.detail).toBeUndefined();
      // A path that is no operation of the broker's is refused before it is sent.
      await expect(api.get('/no-such-collection')).rejects.toThrow(/not an operation of the broker's document/);
    } finally {
      delete (globalThis as any).sessionStorage;
      delete (globalThis as any).location;
    }
  });

  test("partners.js, organization.js, adapters.js: scopes, a record's verification and status, a held message", () => {
    const verified = { verification: { status: 'verified', decidedAt: '2026-11-28T10:00:00Z', decidedBy: { userId: 'olga' }, evidenceReference: 'KRS 0000123456' } };
    speak('en-GB');
    expect(scopeWords('capacity:read')).toBe('see the trucks shared with them');
    expect(verificationText(verified)).toBe('Verified 28 Nov 2026, 11:00 by olga (evidence: KRS 0000123456)');
    expect(statusWord('pending')).toBe('Pending verification');
    speak('de-DE');
    expect(scopeWords('capacity:read')).toBe('die mit ihnen geteilten LKW sehen');
    expect(verificationText(verified)).toBe('Geprüft 28.11.2026, 11:00 von olga (Nachweis: KRS 0000123456)');
    expect(statusWord('pending')).toBe('Prüfung ausstehend');
    expect(heldTitle({ format: 'spreadsheet' })).toBe('Tabelle: per HTTP gesendet');
    speak('pl-PL');
    expect(scopeWords('loads:publish')).toBe('oferować Ci ładunki');
    expect(verificationText(verified)).toBe('Zweryfikowano 28 lis 2026, 11:00 przez olga (dowód: KRS 0000123456)');
    expect(statusWord('pending')).toBe('Oczekuje na weryfikację');
    expect(heldTitle({ format: 'epcis', name: 'events.json' })).toBe('Zdarzenia EPCIS: events.json');
    expect(scopeWords('something:new')).toBe('something:new');
    // A connector's own scopes in words on its card, not the relationship phrasing ("offer ... to you").
    speak('en-GB');
    expect(connectorScopesOf(['relationships:manage', 'capacity:publish', 'exchange:admin'])).toBe('manage partner relationships, publish trucks, administer the exchange');
    speak('de-DE');
    expect(connectorScopesOf(['loads:publish', 'matches:decide'])).toBe('Ladungen veröffentlichen, Vorschläge annehmen oder ablehnen');
    speak('pl-PL');
    expect(connectorScopesOf(['capacity:read', 'something:new'])).toBe('widzieć pojazdy, something:new');
  });

  test('delivered.js: kilometres and CO2e in the locale\'s numbers', () => {
    speak('en-GB');
    expect([kmText(12345), co2eText(2500), co2eText(42)]).toEqual(['12,345 km', '2.5 t CO2e', '42 kg CO2e']);
    speak('de-DE');
    expect([kmText(12345), co2eText(2500), co2eText(42)]).toEqual(['12.345 km', '2,5 t CO2e', '42 kg CO2e']);
    speak('pl-PL');
    expect([kmText(12345), co2eText(2500)]).toEqual(['12\u00a0345 km', '2,5 t CO2e']);
  });

  test('delivered.js: small part loads keep their tonnes and tonne-kilometres (0.4 t and 0.45 t are not "0 t" or "1 t")', () => {
    speak('en-GB');
    expect([tonneText(400), tonneText(450), tonneText(24000), tonneText(123456)]).toEqual(['0.4 t', '0.45 t', '24 t', '123 t']);
    expect([tkmText(0.85), tkmText(42.46), tkmText(12345.6)]).toEqual(['0.85 t·km', '42.5 t·km', '12,346 t·km']);
    speak('de-DE');
    expect([tonneText(450), tkmText(42.46)]).toEqual(['0,45 t', '42,5 tkm']);
  });
});
