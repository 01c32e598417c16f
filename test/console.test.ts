// The planner console against `npm start` (the run's shared start, test/setup/stack-setup.ts, with
// what other files left among the demo organizations ended first), in headless Chromium
// (test/browser.ts): two planners of
// partner organizations sign in through the development OpenID provider; a connector publishes;
// the other side's planner sees the proposal appear without a reload, reads its explanation and
// accepts; the first accepts too; both see the match and what it disclosed; a viewer cannot
// decide; a user of a third organization sees nothing of it; the map drew (pixels); no serious
// accessibility violation (axe). Screenshots of every step are kept as artifacts.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { npmStartFor, ROOT, type NpmStartForFile } from './stack';
import { testEnv } from './helpers';
import { launchBrowser, screenshot, watchedPage, WEBGL_ARGS, type WatchedPage } from './browser';
import { PcxClient } from '../sdk/src';
import { partnership } from '../examples/carrier/shipper';
// The console's catalogues are plain browser modules without type declarations (served as they are).
import en from '../console/i18n/en.json';
import de from '../console/i18n/de.json';
import pl from '../console/i18n/pl.json';

type Catalogue = Record<string, string | Record<string, string>>;
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A catalogue's text with its placeholders filled (the words a planner reads in that language). */
const say = (catalogue: Catalogue, key: string, params: Record<string, string | number> = {}) => String(catalogue[key]).replace(/\{(\w+)\}/g, (_, name) => String(params[name]));
/** A pattern for a catalogue's text: the placeholders given filled, the others matching anything. */
const like = (catalogue: Catalogue, key: string, params: Record<string, string | number> = {}) =>
  new RegExp(String(catalogue[key]).split(/(\{\w+\})/).map((part) => { const name = /^\{(\w+)\}$/.exec(part)?.[1]; return name === undefined ? escaped(part) : name in params ? escaped(String(params[name])) : '.*?'; }).join(''));

const at = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

// The waits are bounds for "it never came", not measurements: a command's notice gets 30 s (it
// took more than 15 s once, in a run of the whole suite on a saturated machine), and each test
// half as long again as it takes there.
describe('the planner console, against npm start in Chromium', () => {
  let start: NpmStartForFile | undefined;
  let base = '';
  let browser: Browser;
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    // Chromium starts while the npm start is made ready; closed in afterAll whatever happens.
    const launching = launchBrowser(WEBGL_ARGS).then((b) => void (browser = b));
    start = await npmStartFor(testEnv(), 'console').finally(() => launching.catch(() => undefined));
    base = start.base;
    await launching;
  }, 225000);

  // Each test's pages closed after it: an open console keeps following the feed and drawing its
  // map (WebGL in software), which took the CPU the later tests and the other test processes need.
  afterEach(async () => {
    await Promise.all(pages.splice(0).map((p) => p.close()));
  });

  afterAll(async () => {
    await Promise.all(pages.map((p) => p.close()));
    await browser?.close();
    if (start) expect(await start.stop()).toBe(0);
  }, 45000);

  /** Pages of users whose organization the adapter gateway does not serve (config/gateway.json: Cargo Co-op's carla). */
  const unserved = new Set<WatchedPage>();

  /** A user signed in through the provider's page, the console loaded and following the feed (in the catalogue's language: the browser's locale says which). */
  async function signedIn(userId: string, password: string, options: Parameters<typeof watchedPage>[1] = {}, catalogue: Catalogue = en): Promise<Page> {
    const watched = await watchedPage(browser, options);
    pages.push(watched);
    if (userId === 'carla') unserved.add(watched);
    const { page } = watched;
    await page.goto(`${base}/console/`);
    await page.getByRole('button', { name: say(catalogue, 'page.signIn') }).click();
    // The provider's own page (dev/oidc.ts) is English.
    await page.getByLabel('User').fill(userId);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/console/`);
    await page.locator('#live.on').waitFor({ timeout: 30000 });
    return page;
  }

  const proposalButton = (page: Page, id: string) => page.locator(`.proposal-item[data-proposal="${id}"]`);

  test('two planners take a proposal from its appearance to the match, live; a viewer cannot decide; a stranger sees nothing', async () => {
    const alpine = new PcxClient({ baseUrl: base, clientId: 'alpine-tms', clientSecret: 'alpine-demo-secret' });
    const baltic = new PcxClient({ baseUrl: base, clientId: 'baltic-erp', clientSecret: 'baltic-demo-secret' });
    await partnership(alpine, baltic);

    const bruno = await signedIn('bruno', 'bruno-demo');
    const alice = await signedIn('alice', 'alice-demo');
    await expect(bruno.locator('#who').textContent()).resolves.toContain('of Baltic Shippers AB (planner)');
    await screenshot(bruno, 'console-1-bruno-signed-in');

    // Baltic's load, then Alpine's truck through its connector: the broker proposes the pair.
    const load = await baltic.requests.create({
      pickupArea: { kind: 'unlocode', code: 'DEHAM' },
      pickupWindow: { start: at(26), end: at(30) },
      deliveryArea: { kind: 'unlocode', code: 'NLRTM' },
      deliveryWindow: { start: at(34), end: at(60) },
      requiredCapacity: { weight: { value: 8, unitCode: 'TNE' }, palletSpaces: 10 },
      vehicleRequirements: { bodyTypes: ['curtainsider'] },
      goodsProfile: { category: 'retail' },
      expiresAt: at(20),
      visibility: { mode: 'partners', organizationIds: ['org-alpine-freight'] },
      restrictedDetails: { deliveryAddress: { lines: ['Kade 4'], postalCode: '3011', city: 'Rotterdam', countryCode: 'NL' } },
    } as never);
    await baltic.requests.publish(load);
    const offer = await alpine.offers.create({
      availabilityWindow: { start: at(24), end: at(72) },
      originArea: { kind: 'unlocode', code: 'DEHAM' },
      destinationArea: { kind: 'unlocode', code: 'NLRTM' },
      vehicleProfile: { bodyType: 'curtainsider' },
      availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, palletSpaces: 33 },
      expiresAt: at(20),
      visibility: { mode: 'partners', organizationIds: ['org-baltic-shippers'] },
      restrictedDetails: { price: { amount: 875, currency: 'EUR' } },
    } as never);
    await alpine.offers.publish(offer);
    let proposalId = '';
    for (let i = 0; i < 60 && !proposalId; i++) {
      for await (const p of baltic.proposals.list({ request: load.id, status: ['open'] } as never)) proposalId = (p as any).id;
      if (!proposalId) await new Promise((r) => setTimeout(r, 500));
    }
    expect(proposalId).not.toBe('');

    // Live: it appears in Bruno's inbox without a reload.
    await proposalButton(bruno, proposalId).waitFor({ timeout: 30000 });
    // The work queue counts it, in the tab's title too.
    await bruno.locator(`#work-slot button.work-item[data-proposal="${proposalId}"]`).getByText(/^Decide on the proposal with Alpine Freight GmbH/).waitFor({ timeout: 30000 });
    expect(await bruno.title()).toMatch(/^\(\d+\) PCX planner console$/);
    await proposalButton(bruno, proposalId).click();
    const detail = bruno.locator('#proposal');
    // The inbox line in words: the lane by place names, the load, the partner by name.
    await expect(proposalButton(bruno, proposalId).textContent()).resolves.toMatch(/Hamburg → Rotterdam.*8 t, 10 pallets · with Alpine Freight GmbH/);
    // The explanation in sentences, with units and places; the criteria as data behind a click.
    const explanation = detail.locator('ul.explanation');
    await explanation.waitFor();
    await expect(explanation.textContent()).resolves.toMatch(/Pickup in Hamburg .* km off the truck's way[\s\S]*Capacity, weight: 8 t needed, 24 t free/);
    await expect(explanation.textContent()).resolves.not.toMatch(/\[object Object\]|undefined|NaN/);
    await detail.getByText('The criteria as data').click();
    await detail.getByRole('table', { name: /Compatibility/ }).waitFor();
    for (const criterion of ['pickupArea', 'deliveryArea', 'detour', 'timeWindow', 'capacity.weightKg', 'bodyType']) {
      await expect(detail.getByRole('rowheader', { name: criterion, exact: true }).count()).resolves.toBe(1);
    }
    await expect(detail.textContent()).resolves.toMatch(/The truck's route is [\d.]+ km[\s\S]*CAPACITY_WEIGHT_FITS/);
    await expect(detail.locator('.disclosure').textContent()).resolves.toContain('its addresses');
    await screenshot(bruno, 'console-2-bruno-explanation');
    // The session ends under Bruno's click (the provider's session gone, his refresh token refused,
    // as after a working day): the accept is kept, not dropped, and the marker stops saying "live"...
    await bruno.context().clearCookies();
    await bruno.evaluate(() => {
      const key = Object.keys(sessionStorage).find((k) => k.startsWith('oidc.user:'))!;
      const user = JSON.parse(sessionStorage.getItem(key)!);
      sessionStorage.setItem(key, JSON.stringify({ ...user, expires_at: Math.floor(Date.now() / 1000) - 60, refresh_token: 'ended-in-the-test' }));
    });
    await detail.getByRole('button', { name: 'Accept' }).click();
    await bruno.locator('#session').getByText(/“Accept the proposal Hamburg .*” was not sent yet: it is kept/).waitFor({ timeout: 30000 });
    await expect(bruno.locator('#live').textContent()).resolves.toBe('not live: signed out');
    await screenshot(bruno, 'console-2b-session-ended-accept-kept');
    expect(((await baltic.proposals.get(proposalId)) as any).decisions.filter((d: any) => d.organizationId === 'org-baltic-shippers')).toEqual([]);
    // ...and once he has signed in again it is sent (with its Idempotency-Key) and said so.
    await bruno.locator('#session').getByRole('button', { name: 'Sign in again' }).click();
    await bruno.getByLabel('User').fill('bruno');
    await bruno.getByLabel('Password').fill('bruno-demo');
    await bruno.getByRole('button', { name: 'Sign in' }).click();
    await bruno.waitForURL(`${base}/console/`);
    await bruno.locator('#notice').getByText(/Done after signing in again: Accept the proposal Hamburg/).waitFor({ timeout: 30000 });
    await bruno.locator('#live.on').waitFor({ timeout: 30000 });
    await proposalButton(bruno, proposalId).click();
    await detail.getByText(/Baltic Shippers AB accepted on .* by you/).waitFor();
    expect(((await baltic.proposals.get(proposalId)) as any).decisions.filter((d: any) => d.organizationId === 'org-baltic-shippers')).toHaveLength(1);
    await screenshot(bruno, 'console-2c-accept-completed-after-sign-in');

    // A viewer of Baltic sees the proposal, and no way to decide.
    const vera = await signedIn('vera', 'vera-demo');
    await proposalButton(vera, proposalId).click();
    await vera.locator('#proposal').getByText('Your role does not let you decide').waitFor({ timeout: 30000 }).catch(async () => {
      // Bruno's accept may already be shown: the viewer gets no buttons either way.
    });
    await expect(vera.locator('#proposal').getByRole('button', { name: 'Accept' }).count()).resolves.toBe(0);
    await screenshot(vera, 'console-3-vera-viewer');

    // Alice accepts: the match is made; both see what the other disclosed.
    await proposalButton(alice, proposalId).waitFor({ timeout: 30000 });
    await proposalButton(alice, proposalId).click();
    await alice.locator('#proposal').getByRole('button', { name: 'Accept' }).click();
    await alice.locator('#proposal').getByText('Disclosed by Baltic Shippers AB').waitFor({ timeout: 30000 });
    await expect(alice.locator('#proposal dl.disclosed').textContent()).resolves.toContain('Delivery addressKade 4, 3011 Rotterdam, Netherlands');
    await screenshot(alice, 'console-4-alice-accepted');
    // Alpine has no TMS in this test: Alice reports the pickup in the console; Bruno sees it live.
    const report = alice.locator('#proposal .report');
    await report.waitFor({ timeout: 30000 });
    await report.getByLabel('Milestone', { exact: true }).selectOption('pickedUp');
    await report.getByRole('button', { name: 'Report milestone' }).click();
    await alice.locator('#notice').getByText('Reported: picked up.').waitFor({ timeout: 30000 });
    await alice.locator('#proposal .timeline').getByText(/: picked up$/).waitFor({ timeout: 30000 });
    await bruno.locator('#proposal .timeline').getByText(/: picked up$/).waitFor({ timeout: 30000 });
    await screenshot(alice, 'console-4c-alice-reported-pickup');
    // The negotiation in the console: Bruno tenders the match, Alice counters with her price, Bruno
    // reads the two revisions side by side and accepts, Alice accepts: the commitment is made.
    // The tender's price starts at the truck's disclosed price (€875), never silently the load's own.
    await expect(bruno.locator('#proposal').getByLabel('Price (€)').inputValue()).resolves.toBe('875');
    await bruno.locator('#proposal').getByRole('button', { name: 'Issue a tender for this match' }).click();
    await bruno.locator('#notice').getByText('Issued: a tender to Alpine Freight GmbH.').waitFor({ timeout: 30000 });
    const aliceTender = alice.locator('#proposal .tender-actions');
    await aliceTender.waitFor({ timeout: 30000 });
    await aliceTender.getByLabel('Counter with price (€)').fill('950');
    await aliceTender.getByLabel('Reason').fill('diesel went up');
    await aliceTender.getByRole('button', { name: 'Counter' }).click();
    await alice.locator('#notice').getByText('Done: Counter the tender with €950.00.').waitFor({ timeout: 30000 });
    // Proposing is agreeing: Alice's counter carries her accept of it; she waits for Bruno.
    await alice.locator('#proposal').getByText(/You accepted revision 2; waiting for Baltic Shippers AB/).waitFor({ timeout: 30000 });
    const diff = bruno.locator('#proposal table.revision-diff');
    await diff.waitFor({ timeout: 30000 });
    await expect(diff.locator('tbody').textContent()).resolves.toMatch(/commercial terms.*€875\.00.*€950\.00/);
    // The counter waits for Bruno, in his queue; for Alice it waits for Bruno.
    await bruno.locator(`#work-slot button.work-item[data-proposal="${proposalId}"]`).getByText(/^Answer the counter \(revision 2\) from Alpine Freight GmbH/).waitFor({ timeout: 30000 });
    await alice.locator(`#work-slot button.work-item[data-proposal="${proposalId}"]`).getByText(/^Baltic Shippers AB to answer revision 2/).waitFor({ timeout: 30000 });
    // Bruno reads why Alice countered.
    await bruno.locator('#proposal .timeline').getByText(/because: “diesel went up”/).waitFor({ timeout: 30000 });
    await screenshot(bruno, 'console-4d-bruno-counter-side-by-side');
    await bruno.locator('#proposal').getByRole('button', { name: 'Accept revision 2' }).click();
    await alice.locator('#proposal .timeline').getByText(/Tender issued by Baltic Shippers AB: accepted/).waitFor({ timeout: 30000 }).catch(async (err) => {
      await screenshot(alice, 'console-debug-tender');
      throw new Error(`${err}\n${await alice.locator('#proposal .timeline').textContent()}`);
    });
    await alice.locator('#proposal .timeline').getByText(/Commitment: \w+, on revision 2 at €950\.00/).waitFor({ timeout: 30000 });
    await bruno.locator('#proposal .timeline').getByText(/Commitment: \w+, on revision 2 at €950\.00/).waitFor({ timeout: 30000 });
    await screenshot(alice, 'console-4e-committed');
    // The commitment is a transport of Bruno's, waiting for his handover.
    // (Alice reported the pickup before the tender: it stands at its last milestone.)
    await bruno.locator('table.transports tr', { hasText: 'Alpine Freight GmbH' }).getByText(/^Under way: picked up, /).first().waitFor({ timeout: 30000 });
    await bruno.locator(`#work-slot button.work-item[data-proposal="${proposalId}"]`).getByText(/^Hand over the execution details to Alpine Freight GmbH/).waitFor({ timeout: 30000 });
    await screenshot(bruno, 'console-4e2-bruno-work-queue');
    // "My transports" sorts by the column clicked, and keeps that order (the table's own state) through the redraws that follow events.
    const priceHeader = bruno.locator('table.transports th', { hasText: 'Agreed price' });
    await priceHeader.getByRole('button').click();
    await expect(priceHeader.getAttribute('aria-sort')).resolves.toBe('ascending');
    await priceHeader.getByRole('button').click();
    await expect(priceHeader.getAttribute('aria-sort')).resolves.toBe('descending');
    // An amendment: Bruno proposes another price; both accept the new revision; the commitment's next version holds it.
    const amend = bruno.locator('#proposal .commitment-actions');
    await amend.getByLabel('Amend the price (€)').fill('900');
    await amend.getByLabel('Reason', { exact: true }).fill('a shorter route');
    await amend.getByRole('button', { name: 'Propose the amendment' }).click();
    await bruno.locator('#notice').getByText('Done: Propose to amend the price to €900.00.').waitFor({ timeout: 30000 });
    for (const planner of [alice, bruno]) {
      const accept = planner.locator('#proposal').getByRole('button', { name: 'Accept revision 3' });
      await Promise.race([accept.waitFor({ timeout: 30000 }), planner.locator('#proposal').getByText(/You accepted revision 3/).waitFor({ timeout: 30000 })]);
      if (await accept.count()) await accept.click();
    }
    await alice.locator('#proposal .timeline').getByText(/Commitment: active, on revision 3 at €900\.00/).waitFor({ timeout: 30000 });
    await screenshot(alice, 'console-4f-amended');
    // Bruno's table kept the order he chose through the amendment's events; its line shows the new price.
    await bruno.locator('table.transports td', { hasText: '€900.00' }).first().waitFor({ timeout: 30000 });
    await expect(priceHeader.getAttribute('aria-sort')).resolves.toBe('descending');
    await bruno.locator('#proposal').getByText('Disclosed by Alpine Freight GmbH').waitFor({ timeout: 30000 });
    await expect(bruno.locator('#proposal dl.disclosed').textContent()).resolves.toContain('Listed price€875.00');
    // Once the match disclosed it, the truck's price is on Bruno's inbox line too.
    await expect(proposalButton(bruno, proposalId).textContent()).resolves.toContain('€875.00');
    // The handover: Bruno sends the execution details (the delivery address filled from his load's
    // restricted details, the pickup's typed); Alice reads the package and takes it into her plan.
    const handoverForm = bruno.locator('#proposal .handover-form');
    await handoverForm.waitFor({ timeout: 30000 });
    // Every field and the button within the panel (the form once ran 2,012 px wide in a 696 px panel).
    const wider = await bruno.evaluate(() => {
      const panel = document.getElementById('detail-pane')!.getBoundingClientRect();
      return Array.from(document.querySelectorAll('#proposal *')).filter((e) => !e.closest('table') && e.getBoundingClientRect().right > panel.right + 1).map((e) => `${e.tagName}#${e.id}.${String(e.className)}`).slice(0, 5);
    });
    expect(wider).toEqual([]);
    expect(await handoverForm.getByRole('button', { name: 'Hand over the execution details' }).isVisible()).toBe(true);
    await expect(handoverForm.getByLabel('Delivery 2: street').inputValue()).resolves.toBe('Kade 4');
    await handoverForm.getByLabel('Pickup 1: street').fill('Kaistraße 7, Tor 3');
    await handoverForm.getByLabel('Phone').fill('+49 40 123456');
    await handoverForm.getByLabel('Instructions for the driver').fill('Report at gate 3');
    await handoverForm.getByRole('button', { name: 'Hand over the execution details' }).click();
    await bruno.locator('#notice').getByText('Handed over: the execution details to Alpine Freight GmbH.').waitFor({ timeout: 30000 });
    const handover = alice.locator('#proposal .handover');
    await handover.getByText(/Pickup at Kaistraße 7, Tor 3, Hamburg, Germany; /).waitFor({ timeout: 30000 });
    await expect(handover.textContent()).resolves.toMatch(/Delivery at Kade 4, 3011 Rotterdam, Netherlands[\s\S]*Instructions: Report at gate 3[\s\S]*Contacts: dispatch .*\+49 40 123456/);
    await screenshot(alice, 'console-4g-handover-offered');
    await handover.getByLabel('Your trip reference').fill('T-2411-07');
    await handover.getByRole('button', { name: 'Take into our plan' }).click();
    await alice.locator('#notice').getByText('Done: Take the handover into our plan as T-2411-07.').waitFor({ timeout: 30000 });
    await bruno.locator('#proposal .handover').getByText(/Handover from Baltic Shippers AB to Alpine Freight GmbH: imported/).waitFor({ timeout: 30000 });
    await expect(bruno.locator('#proposal .handover').textContent()).resolves.toContain('as trip T-2411-07');
    await screenshot(bruno, 'console-4h-handover-imported');
    // The tender, the counter and the commitment as both see them.
    await expect(bruno.locator('#proposal .timeline').textContent()).resolves.toMatch(/Tender issued by Baltic Shippers AB: accepted, revision 3[\s\S]*Commitment: active, on revision 3 at €900\.00/);
    await screenshot(bruno, 'console-5-bruno-match');
    // Bruno cancels the commitment with a reason: both read it cancelled.
    const cancel = bruno.locator('#proposal .commitment-actions');
    await cancel.getByLabel('Reason to cancel').fill('the customer called the order off');
    await cancel.getByRole('button', { name: 'Cancel the commitment' }).click();
    await bruno.locator('#notice').getByText('Done: Cancel the commitment.').waitFor({ timeout: 30000 });
    await alice.locator('#proposal .timeline').getByText(/Commitment: cancelled, on revision 3/).waitFor({ timeout: 30000 });
    await screenshot(alice, 'console-5b-cancelled');

    // The stranger: Cargo Co-op's planner sees nothing of it.
    const carla = await signedIn('carla', 'carla-demo');
    await carla.waitForTimeout(2000);
    await expect(proposalButton(carla, proposalId).count()).resolves.toBe(0);
    await expect(carla.locator('#grid-rows').textContent()).resolves.not.toMatch(/Baltic|org-baltic-shippers/);
    await screenshot(carla, 'console-6-carla-stranger');

    // The map drew: land and water of the basemap, and Alpine's offer in its colour.
    const drawn = await alice.evaluate(() => {
      const map = (window as any).pcxConsole.map;
      const gl: HTMLCanvasElement = map.getCanvas();
      const c = document.createElement('canvas');
      [c.width, c.height] = [gl.width, gl.height];
      const ctx = c.getContext('2d')!;
      ctx.drawImage(gl, 0, 0);
      const data = ctx.getImageData(0, 0, c.width, c.height).data;
      const near = (i: number, [r, g, b]: number[]) => Math.abs(data[i] - r) + Math.abs(data[i + 1] - g) + Math.abs(data[i + 2] - b) < 40;
      let land = 0, water = 0, offer = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (near(i, [0xf4, 0xf1, 0xea])) land++;
        else if (near(i, [0xcf, 0xe3, 0xf3])) water++;
        else if (near(i, [0x1d, 0x5f, 0xa8])) offer++;
      }
      return { land, water, offer, pixels: data.length / 4 };
    });
    expect(drawn.land).toBeGreaterThan(drawn.pixels / 10);
    expect(drawn.water).toBeGreaterThan(drawn.pixels / 20);
    expect(drawn.offer).toBeGreaterThan(20);

    // Why not? The pair evaluated on demand, with its criteria.
    await alice.getByText('Why not? Evaluate a pair').click();
    await alice.getByLabel('Offer', { exact: true }).selectOption(offer.id);
    await alice.getByLabel('Request', { exact: true }).selectOption(load.id);
    await alice.getByRole('button', { name: 'Evaluate' }).click();
    await alice.locator('#whynot-result').getByText(/^(Compatible|Not compatible)$/).waitFor({ timeout: 30000 });
    await expect(alice.locator('#whynot-result li').count()).resolves.toBeGreaterThan(0);
    await screenshot(alice, 'console-4b-why-not');

    // Accessibility: no serious or critical violation on the console with a proposal open.
    const axe = await new AxeBuilder({ page: alice as any }).analyze();
    const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.length})`);
    expect(serious).toEqual([]);
    // The console asks npm start's adapter gateway (CONSOLE_GATEWAY_URL) for the messages it holds
    // for the user's organization; for one it does not serve it answers 403, which Chromium logs
    // as a failed resource (the console says so in its panel). Tolerated there only.
    const gateway = new URL(start!.gatewayUrl).origin;
    const notServed = (p: WatchedPage, e: string) => unserved.has(p) && e.includes('status of 403') && e.includes(`${gateway}/quarantine`);
    // Bruno's session was ended on purpose: the provider refused his refresh token (400), and the
    // sign-in's navigation cut his open event stream, and a token request of his page still in
    // flight (seen once on a quiet machine).
    // And a tender decision sent on a version the other side's decision had just moved is answered
    // 409, re-read and sent again (the revision unchanged).
    const brunoPage = pages.find((p) => p.page === bruno);
    const ended = (p: WatchedPage, e: string) =>
      (e.includes('status of 400') && e.includes('/oidc/token')) ||
      (e.includes('/events/stream') && e.includes('ERR_ABORTED')) ||
      (p === brunoPage && e.includes('POST') && e.includes('/oidc/token') && e.includes('ERR_ABORTED')) ||
      (e.includes('status of 409') && /\/transport-tenders\/[^/]+\/decisions/.test(e));
    for (const p of pages) expect(p.errors.filter((e) => !/favicon/.test(e) && !notServed(p, e) && !ended(p, e))).toEqual([]);
    // Nothing from anywhere else: the broker's origin, and the adapter gateway's beside it.
    const own = [base, gateway];
    for (const p of pages) {
      expect(p.origins()).toContain(base);
      expect(p.origins().filter((origin) => !own.includes(origin))).toEqual([]);
    }
    // Out of the way of the next test's truck.
    await alpine.offers.withdraw((await alpine.offers.get(offer.id)) as any, { reason: 'test done' } as never, { redecideOnStale: true });
    await baltic.requests.withdraw((await baltic.requests.get(load.id)) as any, { reason: 'test done' } as never, { redecideOnStale: true }).catch(() => undefined);
  }, 360000);

  test("a carrier's planner on a phone, by keyboard alone: notified of a proposal, accepts it, reports the pickup", async () => {
    const alpine = new PcxClient({ baseUrl: base, clientId: 'alpine-tms', clientSecret: 'alpine-demo-secret' });
    const baltic = new PcxClient({ baseUrl: base, clientId: 'baltic-erp', clientSecret: 'baltic-demo-secret' });
    await partnership(alpine, baltic);
    // A phone-sized screen with notifications allowed; the notifications the console shows are recorded.
    const watched = await watchedPage(browser, { viewport: { width: 390, height: 844 }, permissions: ['notifications'], hasTouch: true });
    pages.push(watched);
    const { page: phone } = watched;
    await phone.addInitScript(() => {
      const shown: string[] = ((window as any).shownNotifications = []);
      const Real = window.Notification;
      class Recorded extends Real {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options);
          shown.push(`${title}: ${options?.body ?? ''}`);
        }
      }
      Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
      (window as any).Notification = Recorded;
    });
    /** Tabs forward until the element is focused (it is in the tab order), then returns it. */
    const tabTo = async (target: ReturnType<Page['locator']>, most = 120) => {
      await target.first().waitFor({ timeout: 30000 }).catch(async (err) => {
        await screenshot(phone, 'console-phone-debug');
        throw new Error(`${err}\n${watched.errors.join('\n')}`);
      });
      for (let i = 0; i < most; i++) {
        if (await target.first().evaluate((node) => node === document.activeElement)) return target.first();
        await phone.keyboard.press('Tab');
      }
      throw new Error(`not reached by Tab: ${target}`);
    };
    await phone.goto(`${base}/console/`);
    await (await tabTo(phone.getByRole('button', { name: 'Sign in' }))).press('Enter');
    await (await tabTo(phone.getByLabel('User'))).pressSequentially('alice');
    await (await tabTo(phone.getByLabel('Password'))).pressSequentially('alice-demo');
    await phone.keyboard.press('Enter');
    await phone.waitForURL(`${base}/console/`);
    await phone.locator('#live.on').waitFor({ timeout: 30000 });
    // Nothing wider than the screen: no sideways scrolling on a phone (what sticks out is named).
    const overflow = () =>
      phone.evaluate(() =>
        Array.from(document.querySelectorAll('body *'))
          .filter((e) => {
            if (e.getBoundingClientRect().right <= window.innerWidth + 1 || getComputedStyle(e).position === 'fixed') return false;
            // Inside the grid or a wide table, which scroll sideways by themselves, is allowed.
            return !e.parentElement?.closest('.grid-wrap, table');
          })
          .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.split(' ')[0]}` : ''}`)
          .slice(0, 10)
          .concat(document.documentElement.scrollWidth > window.innerWidth + 1 ? [`page ${document.documentElement.scrollWidth} px wide`, ...Array.from(document.querySelectorAll('body *')).filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 12).map((e) => `${e.tagName}#${e.id}.${String(e.className)} ${Math.round(e.getBoundingClientRect().right)}`)] : []),
      );
    await expect(overflow()).resolves.toEqual([]);

    const load = await baltic.requests.create({
      pickupArea: { kind: 'unlocode', code: 'PLGDN' },
      pickupWindow: { start: at(26), end: at(30) },
      deliveryArea: { kind: 'unlocode', code: 'DEHAM' },
      deliveryWindow: { start: at(34), end: at(60) },
      requiredCapacity: { weight: { value: 12, unitCode: 'TNE' }, palletSpaces: 16 },
      vehicleRequirements: { bodyTypes: ['curtainsider'] },
      goodsProfile: { category: 'retail' },
      expiresAt: at(20),
      visibility: { mode: 'partners', organizationIds: ['org-alpine-freight'] },
    } as never);
    await baltic.requests.publish(load);
    const offer = await alpine.offers.create({
      availabilityWindow: { start: at(24), end: at(72) },
      originArea: { kind: 'unlocode', code: 'PLGDN' },
      destinationArea: { kind: 'unlocode', code: 'DEHAM' },
      vehicleProfile: { bodyType: 'curtainsider' },
      availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, palletSpaces: 33 },
      expiresAt: at(20),
      visibility: { mode: 'partners', organizationIds: ['org-baltic-shippers'] },
    } as never);
    await alpine.offers.publish(offer);
    const item = phone.locator('.proposal-item', { hasText: /Gda.sk → Hamburg/ });
    await item.waitFor({ timeout: 60000 });
    await phone.waitForFunction(() => (window as any).shownNotifications.some((n: string) => /New proposal: Gda.sk → Hamburg with Baltic Shippers AB/.test(n)), undefined, { timeout: 30000 });
    await screenshot(phone, 'console-phone-1-notified');
    await (await tabTo(item)).press('Enter');
    await (await tabTo(phone.locator('#proposal').getByRole('button', { name: 'Accept' }))).press('Enter');
    await phone.locator('#proposal').getByText(/Alpine Freight GmbH accepted on .* by you/).waitFor({ timeout: 30000 });
    // The Accept button is gone from the new drawing; the keyboard stays in the proposal (it once fell back to the page's top).
    const focusInProposal = () => phone.evaluate(() => document.getElementById('proposal')!.contains(document.activeElement));
    await expect(focusInProposal()).resolves.toBe(true);
    // The criteria as data read on the phone without scrolling sideways: each criterion a card.
    await phone.locator('#proposal details.as-data summary').click();
    const criteria = phone.locator('#proposal table.criteria').first();
    await criteria.waitFor();
    await expect(criteria.evaluate((table) => table.scrollWidth <= table.clientWidth + 1)).resolves.toBe(true);
    await expect(criteria.locator('td[data-label="Reason code"]').first().isVisible()).resolves.toBe(true);
    const proposalId = await item.getAttribute('data-proposal');
    const proposal = (await baltic.proposals.get(proposalId!)) as any;
    await (baltic.proposals as any).decisions(proposal, { decision: 'accept' }, { redecideOnStale: true });
    // The match is made; the carrier reports the pickup from the phone, by keyboard.
    const milestone = await tabTo(phone.locator('#proposal .report').getByLabel('Milestone', { exact: true }));
    await milestone.selectOption('pickedUp');
    await (await tabTo(phone.locator('#proposal .report').getByRole('button', { name: 'Report milestone' }))).press('Enter');
    await phone.locator('#proposal .timeline').getByText(/: picked up$/).waitFor({ timeout: 30000 });
    await expect(focusInProposal()).resolves.toBe(true);
    await expect(overflow()).resolves.toEqual([]);
    await screenshot(phone, 'console-phone-2-reported');
    // And finishes the transport from the phone: delivered, then completed, with when it actually
    // happened filled from the milestones (the broker requires both times for a completed outcome).
    const report = phone.locator('#proposal .report');
    await (await tabTo(report.getByLabel('Milestone', { exact: true }))).selectOption('delivered');
    await (await tabTo(report.getByRole('button', { name: 'Report milestone' }))).press('Enter');
    await phone.locator('#proposal .timeline').getByText(/^Delivered .*: the outcome is still to be reported/).waitFor({ timeout: 30000 });
    await (await tabTo(report.getByLabel('Outcome', { exact: true }))).selectOption('completed');
    // Filled (the form's value, local time to the minute), and shown in the planner's writing.
    const formValue = (field: ReturnType<typeof report.getByLabel>) => field.evaluate((e) => (e as HTMLInputElement).value);
    expect(await formValue(report.getByLabel('started'))).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    expect(await formValue(report.getByLabel('ended'))).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    expect(await report.getByLabel('started').inputValue()).toMatch(/^\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}/);
    await expect(overflow()).resolves.toEqual([]);
    await screenshot(phone, 'console-phone-3-finishing');
    await (await tabTo(report.getByRole('button', { name: 'Report outcome' }))).press('Enter');
    await phone.locator('#proposal .timeline').getByText('Transport completed').waitFor({ timeout: 30000 });
    await phone.locator('#proposal .timeline').getByText(/^Outcome: completed, /).waitFor({ timeout: 30000 });
    expect(await report.count()).toBe(0);
    await expect(focusInProposal()).resolves.toBe(true);
    await screenshot(phone, 'console-phone-4-completed');
    const axe = await new AxeBuilder({ page: phone as any }).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await alpine.offers.withdraw((await alpine.offers.get(offer.id)) as any, { reason: 'test done' } as never, { redecideOnStale: true }).catch(() => undefined);
    await baltic.requests.withdraw((await baltic.requests.get(load.id)) as any, { reason: 'test done' } as never, { redecideOnStale: true }).catch(() => undefined);
  }, 270000);

  test("a newcomer's walk: the carrier's connector and the shipper's system run, the planner accepts in the console and watches the match go to a completed execution", async () => {
    const node = (script: string, args: string[], env: Record<string, string> = {}) => {
      const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'examples', 'carrier', script), '--base-url', base, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      proc.stdout!.on('data', (c) => (output += c));
      proc.stderr!.on('data', (c) => (output += c));
      return { proc, output: () => output };
    };
    // As the README says: the shipper first; the carrier once the partnership is active (a truck
    // offered to partners before that is refused: no relationship in force).
    const shipper = node('shipper.ts', ['--planner']);
    for (let i = 0; i < 120 && !/partnership of Alpine and Baltic: \S+ active/.test(shipper.output()); i++) await new Promise((r) => setTimeout(r, 500));
    const carrier = node('connector.ts', ['--state', join(testEnv().dir, `console-carrier-${Date.now()}.json`)], { PCX_CLIENT_SECRET: 'alpine-demo-secret' });
    try {
      const bruno = await signedIn('bruno', 'bruno-demo');
      // The proposal the carrier accepted, waiting for Baltic: the shipper names it (on a loaded
      // machine the partnership, the truck, matching and the carrier's accept take a while).
      let proposalId = '';
      for (let i = 0; i < 300 && !proposalId; i++) {
        const m = /proposal (\S+): waiting for a Baltic planner/.exec(shipper.output());
        if (m) proposalId = m[1];
        else await bruno.waitForTimeout(500);
      }
      if (!proposalId) throw new Error(`the shipper named no proposal waiting for the planner:\n${shipper.output()}\n${carrier.output()}`);
      await proposalButton(bruno, proposalId).waitFor({ timeout: 90000 }).catch(async (err) => {
        await screenshot(bruno, 'console-debug-walk');
        throw new Error(`${err}\n${JSON.stringify(pages.map((p) => p.errors))}`);
      });
      await proposalButton(bruno, proposalId).click();
      await bruno.locator('#proposal').getByText(/Alpine Freight GmbH accepted on .* by its system \(alpine-tms\)/).waitFor({ timeout: 30000 });
      await bruno.locator('#proposal').getByRole('button', { name: 'Accept' }).click();
      // Live, without a reload: tender, commitment, handover, the reference completed, the outcome.
      const timeline = bruno.locator('#proposal .timeline');
      await timeline.getByText(/Transport completed/).waitFor({ timeout: 120000 });
      const text = (await timeline.textContent())!;
      expect(text).toMatch(/Tender issued by Baltic Shippers AB: accepted/);
      expect(text).toMatch(/Revision 1 by Baltic Shippers AB, .*: issued with .*pickup in /);
      expect(text).toMatch(/Commitment: \w+, on revision \d+/);
      expect(text).toMatch(/picked up[\s\S]*delivered/);
      expect(text).toContain('Outcome: completed');
      expect(text).not.toMatch(/\[object Object\]|undefined|NaN/);
      await screenshot(bruno, 'console-9-walk-completed');
      // What the exchange delivered: this month's row counts the match, in km and t CO2e as the
      // report says; the method names its factor; the months download as CSV.
      const month = new Date().toISOString().slice(0, 7);
      await bruno.locator('#delivered summary').click();
      const row = bruno.locator(`#delivered tbody tr[data-month="${month}"]`);
      await row.locator('td').first().waitFor({ timeout: 30000 });
      // (A string, so that the test's transform leaves the page's own import() alone.)
      const shown: { matches: number; km: string; co2e: string } = await bruno.evaluate(`(async () => {
        const report = await window.pcxConsole.state.api.get('/reports/exchange-impact?from=${month}&to=${month}');
        const { co2eText, kmText } = await import('/console/app/delivered.js');
        return { matches: report.months[0].matches, km: kmText(report.months[0].loadedKm), co2e: co2eText(report.months[0].kgCO2e) };
      })()`);
      expect(shown.matches).toBeGreaterThanOrEqual(1);
      const cells = await row.locator('td').allTextContents();
      expect(cells[0]).toMatch(new RegExp(`^${shown.matches}`));
      expect(cells[1]).toBe(shown.km);
      expect(cells[3]).toBe(shown.co2e);
      expect(shown).toMatchObject({ km: expect.stringMatching(/^[\d.,\s]+ km$/), co2e: expect.stringMatching(/^[\d.,]+ (t|kg) CO2e$/) });
      await expect(bruno.locator('#delivered .method .factor').textContent()).resolves.toMatch(/101 g CO2e per tonne-kilometre .*GLEC Framework v3/);
      // The inputs name the stops' places, not their codes.
      await bruno.locator('#delivered details.inputs summary').click();
      const inputsText = (await bruno.locator('#delivered details.inputs tbody').textContent()) ?? '';
      expect(inputsText).toMatch(/Hamburg/);
      expect(inputsText).not.toMatch(/DEHAM|NLRTM/);
      await screenshot(bruno, 'console-9b-delivered');
      const [download] = await Promise.all([bruno.waitForEvent('download'), bruno.locator('#delivered-download').click()]);
      expect(download.suggestedFilename()).toMatch(/^exchange-impact-org-baltic-shippers-\d{4}-\d{2}-\d{4}-\d{2}\.csv$/);
      const csv = readFileSync((await download.path())!, 'utf8');
      expect(csv.split('\r\n')[0]).toBe('month,matches,matchesWithoutWeight,loadedKm,tonneKm,kgCO2e,factorGCO2ePerTonneKm,factorSource');
      expect(csv).toContain(`\r\n${month},${shown.matches},`);
      const axeDelivered = await new AxeBuilder({ page: bruno as any }).include('#delivered').analyze();
      expect(axeDelivered.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    } finally {
      carrier.proc.kill('SIGTERM');
      shipper.proc.kill('SIGTERM');
    }
  }, 540000);

  test('a message the adapter gateway held for the organization: the planner reads why, sees the message, and discards it', async () => {
    const baltic = new PcxClient({ baseUrl: base, clientId: 'baltic-erp', clientSecret: 'baltic-demo-secret' });
    const auth = { authorization: `Bearer ${await baltic.accessToken()}` };
    // Baltic's transport instruction (the example) with a latest delivery before the earliest: held, never acted on.
    const consignment = `BS-HELD-${Date.now().toString(36).toUpperCase()}`;
    const message = readFileSync(join(ROOT, 'examples', 'edifact', 'transport-instruction.edi'), 'latin1').replace(/BS-2031-0001/g, consignment).replace('DTM+63:203106031800:203', 'DTM+63:203106021800:203');
    const sent = await fetch(`${start!.gatewayUrl}/messages/edifact`, { method: 'POST', headers: { ...auth, 'idempotency-key': consignment }, body: Buffer.from(message, 'latin1') });
    const entry = await sent.json();
    expect(entry.quarantine?.length).toBeGreaterThan(0);
    const [reason] = entry.quarantine;

    const bruno = await signedIn('bruno', 'bruno-demo');
    const item = bruno.locator('#held button.held-item', { hasText: reason.message });
    await item.first().waitFor({ timeout: 30000 });
    await item.first().click();
    const detail = bruno.locator('#held-detail');
    await detail.getByText(reason.message).waitFor();
    await expect(detail.locator('pre.message').textContent()).resolves.toContain(consignment);
    if (reason.position) await expect(detail.textContent()).resolves.toContain(reason.position);
    await screenshot(bruno, 'console-6b-held-message');
    await detail.getByRole('button', { name: 'Discard' }).click();
    await detail.getByText('Discarded.').waitFor();
    // The list no longer offers it, and the gateway says why: discarded, for good.
    await item.first().waitFor({ state: 'detached', timeout: 30000 });
    const held = await (await fetch(`${start!.gatewayUrl}/quarantine/${entry.id}`, { headers: auth })).json();
    expect(held.state).toBe('discarded');
    // No load request came of it.
    const requests = [];
    for await (const r of baltic.requests.list({ owner: 'org-baltic-shippers' } as never)) requests.push(r);
    expect(requests.filter((r: any) => (r.externalReferences ?? []).some((x: any) => x.value === consignment))).toEqual([]);
  }, 180000);

  test("the operator registers and verifies an organization; an organization's admin sees its connectors' keys, has a client secret made (shown once) and revokes it", async () => {
    const olga = await signedIn('olga', 'olga-demo');
    const organizationId = `org-fjord-${Date.now()}`;
    await olga.locator('#operator-title').waitFor();
    // Her own page is her organization's, with its connectors only (the operator reads everyone's).
    await olga.locator('#organization-title').getByText('Your organization: PCX protocol operator').waitFor({ timeout: 30000 });
    await expect(olga.locator('#connectors').textContent()).resolves.not.toMatch(/alpine|nordic/);
    await olga.getByLabel('Organization name').fill('Fjord Freight AB');
    await olga.getByLabel('Organization id').fill(organizationId);
    await olga.getByLabel('Legal identifier').selectOption('VAT');
    await olga.getByLabel('Identifier', { exact: true }).fill('SE 556703748501');
    await olga.getByRole('button', { name: 'Register' }).click();
    const row = olga.locator(`tr[data-organization="${organizationId}"]`);
    await row.getByText('Pending verification').waitFor({ timeout: 30000 });
    await expect(row.textContent()).resolves.toContain('VAT number SE556703748501');
    await row.getByLabel('Evidence reference').fill('Bolagsverket extract 2026-11-28');
    await row.getByRole('button', { name: 'Verify' }).click();
    await row.getByText(/Verified .* by olga \(evidence: Bolagsverket extract 2026-11-28\)/).waitFor({ timeout: 30000 });
    // The operator lists it in the directory; another organization's admin then finds it by name (accents aside).
    await row.getByLabel('What it does').fill('Reefer trucks Göteborg–Hamburg');
    await row.getByLabel('Country (2 letters)').fill('se');
    await row.getByRole('button', { name: 'List in the directory' }).click();
    await row.getByText('Listed (SE): Reefer trucks Göteborg–Hamburg').waitFor({ timeout: 30000 });
    const alpineTms = new PcxClient({ baseUrl: base, clientId: 'alpine-tms', clientSecret: 'alpine-demo-secret' });
    const found = (await alpineTms.request<{ items: unknown[] }>('GET', '/directory', { query: { q: 'goteborg' } })).data.items;
    expect(found).toContainEqual(expect.objectContaining({ organizationId, name: 'Fjord Freight AB', country: 'SE', relationship: 'none' }));
    await screenshot(olga, 'console-9-operator-verified');
    const axe = await new AxeBuilder({ page: olga as any }).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

    // Alpine's admin: a managed connector (made by its TMS connector's admin scope) with a key that got a token.
    const alpine = new PcxClient({ baseUrl: base, clientId: 'alpine-tms', clientSecret: 'alpine-demo-secret' });
    const clientId = `alpine-console-${Date.now()}`;
    const created = (await alpine.request<{ id: string }>('POST', '/connectors', { body: { clientId, name: 'Console test scanner', scopes: ['capacity:read'] } as never })).data;
    const anna = await signedIn('anna', 'anna-demo');
    await anna.locator('#organization-title').getByText('Your organization: Alpine Freight GmbH').waitFor({ timeout: 30000 });
    // Her partners by name, what each may do in words; an invitation sent and withdrawn.
    const partners = anna.locator('#partners');
    const baltic = partners.locator('li.relationship.status-active', { hasText: 'Baltic Shippers AB' });
    await baltic.getByText(/^active/).waitFor({ timeout: 30000 });
    await expect(baltic.textContent()).resolves.toContain('see the trucks shared with them');
    const pending = partners.locator('li.relationship.status-requested', { hasText: 'org-cargo-coop' });
    // An invitation left by an earlier run is withdrawn first (one relationship per pair at a time).
    if (await pending.count()) {
      await pending.first().getByLabel('Reason to withdraw').fill('cleared by the test');
      await pending.first().getByRole('button', { name: 'Withdraw' }).click();
      await pending.first().waitFor({ state: 'detached', timeout: 30000 });
    }
    // Found by name in the operator's directory (not typed as an id): what it does and where, and Baltic already a partner.
    await partners.getByLabel('Find the organization by name').fill('co-op');
    const cargo = partners.getByRole('radio', { name: /Cargo Co-op Logistics · Germany · A co-operative of owner-drivers/ });
    await cargo.waitFor({ timeout: 30000 });
    await partners.getByLabel('Find the organization by name').fill('');
    await expect(partners.getByRole('radio', { name: /Baltic Shippers AB .*\(already a partner\)/ }).isDisabled()).resolves.toBe(true);
    await partners.getByLabel('Find the organization by name').fill('owner-driv');
    await cargo.check();
    await partners.getByRole('button', { name: 'Invite Cargo Co-op Logistics' }).click();
    await anna.locator('#notice').getByText(/Invited: Cargo Co-op Logistics/).waitFor({ timeout: 30000 });
    await pending.first().getByText(/you invited them/).waitFor({ timeout: 30000 });
    await screenshot(anna, 'console-10b-admin-partners');
    await pending.first().getByLabel('Reason to withdraw').fill('invited by the test');
    await pending.first().getByRole('button', { name: 'Withdraw' }).click();
    await pending.first().waitFor({ state: 'detached', timeout: 30000 });
    const card = anna.locator('li.connector', { hasText: clientId });
    await card.getByText('No keys yet.').waitFor({ timeout: 30000 });
    await card.getByText('May: see trucks').waitFor();
    await card.getByRole('button', { name: 'New client secret' }).click();
    const shown = anna.locator('#shown-secret');
    await shown.waitFor({ timeout: 30000 });
    const secret = (await shown.textContent())!;
    expect(secret).toMatch(/^pcxs_/);
    await card.getByText(`Client secret ending ${secret.slice(-4)}`).waitFor();
    await screenshot(anna, 'console-10-admin-secret-shown-once');
    // It works, and the page says when it was last used; then revoked from the page, it does not.
    const token = await fetch(`${base}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }) });
    expect(token.status).toBe(200);
    await anna.reload();
    await anna.locator('li.connector', { hasText: clientId }).getByText(/last used/).waitFor({ timeout: 30000 });
    await expect(anna.locator('#shown-secret').count()).resolves.toBe(0);
    const again = anna.locator('li.connector', { hasText: clientId });
    await again.locator('li.credential').getByLabel('Reason to revoke').fill('console test done');
    await again.getByRole('button', { name: 'Revoke' }).click();
    await again.locator('li.credential').getByText(/Revoked, added/).waitFor({ timeout: 30000 });
    const refused = await fetch(`${base}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }) });
    expect(refused.status).toBe(401);
    // A user invited from the page signs in with the code shown once; its first request makes it active.
    const invitee = `ursula-${Date.now()}`;
    await anna.getByLabel('User id (as the identity provider names the user)').fill(invitee);
    await anna.getByLabel('User name').fill('Ursula Alpine');
    await anna.getByLabel('Role').selectOption('viewer');
    await anna.getByRole('button', { name: 'Invite', exact: true }).click();
    const code = (await anna.locator('#shown-invitation').textContent({ timeout: 30000 }))!;
    await anna.locator(`li[data-user="${invitee}"]`).getByText(/Invited, Viewer, invitation open until/).waitFor({ timeout: 30000 });
    const ursula = await signedIn(invitee, code);
    await ursula.getByText('Ursula Alpine of Alpine Freight GmbH (viewer)').waitFor();
    await anna.reload();
    await anna.locator(`li[data-user="${invitee}"]`).getByText(/Active, Viewer, since/).waitFor({ timeout: 30000 });
    await screenshot(anna, 'console-11-admin-user-invited-and-active');
    // Retired (its version: created, a secret added, the secret revoked).
    await alpine.request('POST', '/connectors/{id}/retire', { path: { id: created.id }, body: { reason: 'console test done' } as never, ifMatch: '"3"' });
  }, 180000);

  test('a planner posts a truck from the console: places found by name, the broker\'s problem next to its field, posted, then withdrawn; a draft edited with a circle drawn on the map; areas drawn as their shapes, ends clustered', async () => {
    // A draft of Alpine's from France to Bavaria (a country and a subdivision): drawn as their shapes.
    const alpine = new PcxClient({ baseUrl: base, clientId: 'alpine-tms', clientSecret: 'alpine-demo-secret' });
    const shaped = await alpine.offers.create({
      availabilityWindow: { start: at(24), end: at(48) },
      originArea: { kind: 'country', code: 'FR' },
      destinationArea: { kind: 'subdivision', code: 'DE-BY' },
      vehicleProfile: { bodyType: 'box' },
      availableCapacity: { weight: { value: 12, unitCode: 'TNE' } },
      expiresAt: at(20),
      visibility: { mode: 'open' },
    } as never);
    const alice = await signedIn('alice', 'alice-demo');
    await alice.getByText('Post a truck or a load').click();
    const form = alice.locator('#post-form');
    await form.getByLabel('From', { exact: true }).fill('Gdan');
    await alice.locator('#post-from-list option[value="Gdańsk, Poland (PLGDN)"]').waitFor({ state: 'attached', timeout: 30000 });
    await form.getByLabel('From', { exact: true }).fill('Gdansk (PLGDN)');
    await form.getByLabel('To', { exact: true }).fill('Antwer');
    await alice.locator('#post-to-list option[value="Antwerpen, Belgium (BEANR)"]').waitFor({ state: 'attached', timeout: 30000 });
    await form.getByLabel('To', { exact: true }).fill('Antwerpen (BEANR)');
    await form.getByLabel('Weight (t)', { exact: true }).fill('20');
    await form.getByLabel('Pallets', { exact: true }).fill('30');
    await form.getByLabel('Body', { exact: true }).selectOption('tanker');
    await form.getByLabel('Price (EUR)', { exact: true }).fill('1150');
    // The goods the truck can carry, as the broker matches them: a class ADR lacks is said at the field, nothing sent.
    await form.getByLabel('ADR classes').fill('3, 11');
    await form.getByRole('button', { name: 'Post' }).click();
    await form.locator('#post-goods-error').getByText(/names classes ADR does not have: 11/).waitFor({ timeout: 30000 });
    await form.getByLabel('ADR classes').fill('3, 8');
    await form.getByLabel('tail lift').check();
    // Listed until a moment ago: the broker refuses the publication, and says so next to the field.
    await form.getByLabel('Listed until', { exact: true }).fill('2020-01-01T08:00');
    await form.getByRole('button', { name: 'Post' }).click();
    await form.locator('#post-expires-error').getByText('Listed until must be in the future.').waitFor({ timeout: 30000 });
    await expect(form.locator('#post-expires').getAttribute('aria-invalid')).resolves.toBe('true');
    await screenshot(alice, 'console-12-post-problem-at-its-field');
    // Nothing half done: the draft the refused publication left is discarded; the form keeps what was typed.
    await alice.waitForFunction(() => !Array.from(document.querySelectorAll('#grid-rows tr')).some((r) => /Gdańsk → Antwerpen/.test(r.textContent ?? '') && /draft/.test(r.textContent ?? '')), undefined, { timeout: 30000 });
    await expect(form.getByLabel('Weight (t)', { exact: true }).inputValue()).resolves.toBe('20');
    // Corrected: posted, and on the market list with a way to withdraw it.
    const until = new Date(Date.now() + 20 * 3600_000);
    await form.getByLabel('Listed until', { exact: true }).fill(new Date(until.getTime() - until.getTimezoneOffset() * 60_000).toISOString().slice(0, 16));
    await form.getByRole('button', { name: 'Post' }).click();
    // The notice says it as the planner typed it; the market, as UN/LOCODE names the place (with its accent).
    await alice.locator('#notice').getByText(/Posted: truck Gdansk → Antwerpen/).waitFor({ timeout: 30000 });
    // The form is empty again for the next truck.
    await expect(form.getByLabel('From', { exact: true }).inputValue()).resolves.toBe('');
    await expect(form.getByLabel('Weight (t)', { exact: true }).inputValue()).resolves.toBe('');
    const mine = alice.locator('#grid-rows tr', { hasText: 'Gdańsk → Antwerpen' }).filter({ hasText: 'published' });
    await mine.first().waitFor({ timeout: 30000 });
    await expect(mine.first().textContent()).resolves.toMatch(/Gdańsk → Antwerpen.*20 t, 30 pallets.*tanker.*Alpine Freight GmbH \(us\).*published/);
    await screenshot(alice, 'console-13-posted');
    const idle = () => alice.evaluate(() => new Promise((resolve) => { const map = (window as any).pcxConsole.map; if (map.loaded() && !map.isMoving()) resolve(null); else map.once('idle', resolve); }));
    // A second truck from Gdansk (Alpine's TMS), so that two ends lie close together whatever the
    // other tests left on the market.
    const neighbour = await alpine.offers.create({ availabilityWindow: { start: at(24), end: at(48) }, originArea: { kind: 'unlocode', code: 'PLGDN' }, destinationArea: { kind: 'unlocode', code: 'NLRTM' }, vehicleProfile: { bodyType: 'curtainsider' }, availableCapacity: { weight: { value: 10, unitCode: 'TNE' } }, expiresAt: at(20), visibility: { mode: 'open' } } as never);
    await alpine.offers.publish(neighbour);
    await alice.locator(`#grid-rows tr[data-listing="${neighbour.id}"]`).waitFor({ timeout: 30000 });
    // France drawn as France (its land, not the Bay of Biscay its box covers), Bavaria as Bavaria;
    // zoomed out, the ends close together (the two Gdansk trucks') are one bubble with their count.
    await alice.evaluate(() => (window as any).pcxConsole.map.jumpTo({ center: [7.5, 49.5], zoom: 4 }));
    await idle();
    const areas = await alice.evaluate((listingId) => {
      const map = (window as any).pcxConsole.map;
      const hit = (lonLat: number[]) => map.queryRenderedFeatures(map.project(lonLat), { layers: ['listing-areas'] }).some((f: any) => f.properties.id === listingId);
      const drawn = map.querySourceFeatures('listings').filter((f: any) => f.properties.id === listingId && f.geometry.type !== 'LineString');
      return { paris: hit([2.35, 48.85]), biscay: hit([-4, 46]), munich: hit([11.58, 48.14]), stuttgart: hit([9.18, 48.78]), corners: Math.max(...drawn.map((f: any) => JSON.stringify(f.geometry.coordinates).split('],[').length)) };
    }, shaped.id);
    expect(areas).toMatchObject({ paris: true, biscay: false, munich: true, stuttgart: false });
    expect(areas.corners).toBeGreaterThan(20);
    await alice.locator('#map').scrollIntoViewIfNeeded();
    const bubble = await alice.evaluate(() => {
      const map = (window as any).pcxConsole.map;
      // The bubble nearest the middle (one at the edge may lie under the zoom buttons).
      const middle = map.project(map.getCenter());
      const [p] = map.queryRenderedFeatures({ layers: ['listing-clusters'] })
        .filter((f: any) => f.properties.point_count >= 2)
        .map((f: any) => map.project(f.geometry.coordinates))
        .sort((a: any, b: any) => a.dist(middle) - b.dist(middle));
      if (!p) return null;
      const box = map.getCanvas().getBoundingClientRect();
      return { x: box.left + p.x, y: box.top + p.y };
    });
    expect(bubble).not.toBeNull();
    await screenshot(alice, 'console-13b-shapes-and-clusters');
    await alice.mouse.click(bubble!.x, bubble!.y);
    await alice.waitForFunction(() => { const map = (window as any).pcxConsole.map; return map.getZoom() > 4.5 && !map.isMoving(); }, undefined, { timeout: 10000 });
    const posted: any[] = [];
    for await (const o of alpine.offers.list({ status: ['published'] } as never)) if ((o as any).originArea?.code === 'PLGDN' && (o as any).vehicleProfile?.bodyType === 'tanker') posted.push(o);
    expect(posted.length).toBeGreaterThanOrEqual(1);
    expect(posted[0].restrictedDetails).toEqual({ price: { amount: 1150, currency: 'EUR' } });
    expect(posted[0].availableCapacity).toEqual({ weight: { value: 20, unitCode: 'TNE' }, palletSpaces: 30 });
    expect(posted[0].constraints).toEqual({ dangerousGoods: { adrClasses: ['3', '8'] } });
    expect(posted[0].vehicleProfile).toEqual({ bodyType: 'tanker', equipment: ['tailLift'] });

    // The grid: searched, sorted, a row chosen is drawn highlighted on the map, and a click on its
    // lane on the map chooses its row.
    // The search finds the truck (the draft the refused publication made was discarded).
    await alice.locator('#grid-text').fill('gdansk tanker');
    await alice.locator('#grid-count').getByText(/^1 of \d+ listings/).waitFor({ timeout: 10000 });
    await alice.locator('#grid-head').getByRole('button', { name: /Capacity/ }).click();
    await expect(alice.locator('#grid-head th[aria-sort="ascending"]').textContent()).resolves.toContain('Capacity');
    const id = posted[0].id;
    const chosenOnMap = () => alice.evaluate((x) => JSON.stringify((window as any).pcxConsole.map.getFilter('listing-chosen')).includes(x), id);
    await mine.first().getByRole('button', { name: /Show on the map/ }).click();
    await alice.waitForFunction((x) => JSON.stringify((window as any).pcxConsole.map.getFilter('listing-chosen')).includes(x), id);
    await alice.evaluate(() => (window as any).pcxConsole.state.grid.choose(null, { fromMap: true }));
    expect(await chosenOnMap()).toBe(false);
    await alice.evaluate(() => new Promise((resolve) => { const map = (window as any).pcxConsole.map; if (map.loaded() && !map.isMoving()) resolve(null); else map.once('idle', resolve); }));
    const [from, to] = [posted[0].originArea.code, posted[0].destinationArea.code];
    await alice.locator('#map').scrollIntoViewIfNeeded();
    const point = await alice.evaluate(([a, b, listingId]) => {
      const c = (window as any).pcxConsole;
      // Near the middle of the drawn line (a straight line on the screen between its ends, fanned
      // a few pixels aside when another listing shares the lane): where this listing's line is drawn.
      const [p, q] = [c.map.project(c.state.places[a].point), c.map.project(c.state.places[b].point)];
      const box = c.map.getCanvas().getBoundingClientRect();
      const [mx, my] = [(p.x + q.x) / 2, (p.y + q.y) / 2];
      const length = Math.hypot(q.x - p.x, q.y - p.y);
      const [nx, ny] = [-(q.y - p.y) / length, (q.x - p.x) / length];
      for (let d = 0; d <= 12; d += 0.5) {
        for (const s of [d, -d]) {
          const [x, y] = [mx + nx * s, my + ny * s];
          if (c.map.queryRenderedFeatures([x, y], { layers: ['listing-routes'] }).some((f: any) => f.properties.id === listingId)) return { x: box.left + x, y: box.top + y };
        }
      }
      return { x: box.left + mx, y: box.top + my };
    }, [from, to, id]);
    await alice.mouse.click(point.x, point.y);
    await alice.locator(`#grid-rows tr[data-listing="${id}"][aria-selected="true"]`).waitFor({ timeout: 10000 }).catch(async (err) => {
      await screenshot(alice, 'console-debug-map-click');
      const debug = await alice.evaluate(({ x, y }) => {
        const c = (window as any).pcxConsole;
        const box = c.map.getCanvas().getBoundingClientRect();
        const hits = c.map.queryRenderedFeatures([x - box.left, y - box.top]).map((f: any) => `${f.layer.id}:${f.properties.id}`);
        return { box: [box.left, box.top, box.width, box.height], hits, viewport: [window.innerWidth, window.innerHeight, window.scrollY], chosen: c.state.chosen, pick: typeof c.map._pcxOnPick };
      }, point);
      throw new Error(`${err}\n${JSON.stringify({ point, debug })}`);
    });
    expect(await chosenOnMap()).toBe(true);
    await screenshot(alice, 'console-14-grid-and-map-linked');
    await alice.locator('#grid-text').fill('');

    await alpine.offers.withdraw((await alpine.offers.get(neighbour.id)) as any, { reason: 'test done' } as never, { redecideOnStale: true });
    // Withdrawn from the list.
    await mine.first().getByLabel('Reason to withdraw').fill('the truck broke down');
    await mine.first().getByRole('button', { name: 'Withdraw' }).click();
    await alice.locator('#grid-rows tr', { hasText: 'Gdańsk → Antwerpen' }).filter({ hasText: 'published' }).waitFor({ state: 'detached', timeout: 30000 });
    // A load with dangerous goods: its ADR class for everyone deciding, its UN numbers for the carrier once matched.
    await form.getByLabel('A load (freight looking for a truck)').check();
    await form.getByLabel('From', { exact: true }).fill('Gdansk (PLGDN)');
    await form.getByLabel('To', { exact: true }).fill('Antwerpen (BEANR)');
    await form.getByLabel('Weight (t)', { exact: true }).fill('8');
    await form.getByLabel('ADR classes').fill('3');
    await form.getByLabel('UN numbers').fill('1203, 12A4');
    await form.getByRole('button', { name: 'Post' }).click();
    await form.locator('#post-goods-error').getByText(/UN numbers have four digits: 12A4/).waitFor({ timeout: 30000 });
    await form.getByLabel('UN numbers').fill('1203, UN 1993');
    await form.getByRole('button', { name: 'Post' }).click();
    await alice.locator('#notice').getByText(/Posted: load Gdansk → Antwerpen/).waitFor({ timeout: 30000 });
    const postedLoads = (await alpine.request<{ items: any[] }>('GET', '/load-requests', { query: { owner: 'org-alpine-freight', limit: 200 } })).data.items.filter((l) => l.status === 'published' && l.pickupArea?.code === 'PLGDN' && l.deliveryArea?.code === 'BEANR');
    expect(postedLoads.map((l) => [l.handlingRequirements?.dangerousGoods?.adrClasses, l.restrictedDetails?.goodsDetails?.unNumbers])).toContainEqual([['3'], ['1203', '1993']]);
    for (const l of postedLoads) await alpine.requests.withdraw(l, { reason: 'test done' } as never, { redecideOnStale: true }).catch(() => undefined);
    const axe = await new AxeBuilder({ page: alice as any }).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    // Drafts saved by Alpine's TMS: one discarded in the console (partners never saw it), one edited.
    const draftBody = { availabilityWindow: { start: at(24), end: at(48) }, originArea: { kind: 'unlocode', code: 'PLGDN' }, destinationArea: { kind: 'unlocode', code: 'BEANR' }, vehicleProfile: { bodyType: 'tanker' }, availableCapacity: { weight: { value: 20, unitCode: 'TNE' }, palletSpaces: 30 }, expiresAt: at(20), visibility: { mode: 'open' } };
    const discarded = await alpine.offers.create(draftBody as never);
    await alpine.offers.create(draftBody as never);
    // A draft is the owner's alone and announced to nobody's feed: the console reads it on its next reading.
    await alice.reload();
    await alice.locator('#live.on').waitFor({ timeout: 30000 });
    const toDiscard = alice.locator(`#grid-rows tr[data-listing="${discarded.id}"]`);
    await toDiscard.getByRole('button', { name: 'Discard' }).click({ timeout: 30000 });
    await toDiscard.waitFor({ state: 'detached', timeout: 30000 });
    expect(((await alpine.offers.get(discarded.id)) as any).status).toBe('withdrawn');
    await expect(alice.locator('#grid-rows').textContent()).resolves.toMatch(/Gdańsk → Antwerpen.*draft.*Publish/);

    // The draft edited: the form filled with it; a problem the broker finds shown at its field;
    // its destination drawn on the map as a circle; saved with a PATCH on its version.
    const draft = alice.locator('#grid-rows tr', { hasText: 'Gdańsk → Antwerpen' }).filter({ hasText: 'draft' }).first();
    const draftId = (await draft.getAttribute('data-listing'))!;
    await draft.getByRole('button', { name: /^Edit the draft truck/ }).click();
    await alice.locator('#post-title').getByText('Edit the draft truck Gdańsk → Antwerpen').waitFor();
    await expect(form.getByLabel('From', { exact: true }).inputValue()).resolves.toBe('Gdańsk (PLGDN)');
    await expect(form.getByLabel('Weight (t)', { exact: true }).inputValue()).resolves.toBe('20');
    await form.getByLabel('Weight (t)', { exact: true }).fill('-5');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.locator('#post-capacity-error').getByText(/^Capacity/).waitFor({ timeout: 30000 });
    await screenshot(alice, 'console-15-draft-edit-problem-at-its-field');
    await form.getByLabel('Weight (t)', { exact: true }).fill('18');
    await form.getByLabel('Listed until', { exact: true }).fill(new Date(until.getTime() - until.getTimezoneOffset() * 60_000).toISOString().slice(0, 16));
    await form.getByRole('button', { name: 'Draw the To area as a circle on the map' }).click();
    await alice.evaluate(() => (window as any).pcxConsole.map.jumpTo({ center: [4.4, 51.22], zoom: 6 }));
    await idle();
    const drag = await alice.evaluate(() => {
      const c = (window as any).pcxConsole;
      const box = c.map.getCanvas().getBoundingClientRect();
      // From Antwerp to 40 km east of it (at its latitude, 1° of longitude is 69.7 km).
      const [a, b] = [c.map.project([4.4, 51.22]), c.map.project([4.4 + 40 / 69.7, 51.22])];
      return { from: { x: box.left + a.x, y: box.top + a.y }, to: { x: box.left + b.x, y: box.top + b.y } };
    });
    await alice.mouse.move(drag.from.x, drag.from.y);
    await alice.mouse.down();
    await alice.mouse.move((drag.from.x + drag.to.x) / 2, drag.from.y, { steps: 3 });
    await alice.locator('#post-to-hint').getByText(/km around 51\.2\d° N, 4\.[34]\d° E \(release to keep it\)/).waitFor();
    await alice.mouse.move(drag.to.x, drag.to.y, { steps: 3 });
    await screenshot(alice, 'console-16-circle-being-drawn');
    await alice.mouse.up();
    const circle = await form.getByLabel('To', { exact: true }).inputValue();
    expect(circle).toMatch(/^\d+ km around 51\.2\d° N, 4\.[34]\d° E$/);
    expect(Math.abs(Number(circle.split(' ')[0]) - 40)).toBeLessThanOrEqual(3);
    await form.getByRole('button', { name: 'Save changes' }).click();
    await alice.locator('#notice').getByText(/Saved: truck Gdańsk → \d+ km around/).waitFor({ timeout: 30000 });
    // In the list the circle is named by the place nearest its centre (GET /console/places?near=...).
    await alice.locator('#grid-rows').getByText(/Gdańsk → \d+ km around Antwerpen/).first().waitFor({ timeout: 30000 });
    const edited = (await alpine.offers.get(draftId)) as any;
    expect(edited.status).toBe('draft');
    expect(edited.destinationArea).toMatchObject({ kind: 'circle', radiusKm: Number(circle.split(' ')[0]) });
    expect(edited.availableCapacity).toEqual({ weight: { value: 18, unitCode: 'TNE' }, palletSpaces: 30 });
    expect(edited.vehicleProfile.bodyType).toBe('tanker');
    expect(Date.parse(edited.expiresAt)).toBeGreaterThan(Date.now());
  }, 225000);

  test('a disabled user is refused at sign-in with the reason; sign-out ends the session', async () => {
    const watched = await watchedPage(browser);
    pages.push(watched);
    const { page } = watched;
    await page.goto(`${base}/console/`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('User').fill('dora');
    await page.getByLabel('Password').fill('dora-demo');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('This user is disabled.').waitFor();
    const axe = await new AxeBuilder({ page: page as any }).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    await screenshot(page, 'console-7-disabled');
    const alice = await signedIn('alice', 'alice-demo');
    await alice.getByRole('button', { name: 'Sign out' }).click();
    await alice.getByRole('button', { name: /sign me out/i }).click();
    await alice.waitForURL(`${base}/console/`);
    await alice.getByRole('button', { name: 'Sign in' }).waitFor();
    // Signed out is not a blank page: what the console is for, and the way in.
    await alice.getByRole('heading', { name: 'Trucks and loads among your partners' }).waitFor();
    await expect(alice.locator('#welcome').textContent()).resolves.toContain('The exchange proposes the pairs that fit');
    const signedOutAxe = await new AxeBuilder({ page: alice as any }).analyze();
    expect(signedOutAxe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    await screenshot(alice, 'console-8-signed-out');
  }, 180000);

  test('in German for a browser that prefers it (<html lang="de">); the picker switches to Polish and keeps the session', async () => {
    const watched = await watchedPage(browser, { locale: 'de-DE' });
    pages.push(watched);
    const { page } = watched;
    await page.goto(`${base}/console/`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de');
    // The signed-out page in German, as axe finds it.
    await page.getByRole('heading', { name: 'LKW und Ladungen unter Ihren Partnern' }).waitFor();
    const signedOutAxe = await new AxeBuilder({ page: page as any }).analyze();
    expect(signedOutAxe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await page.getByRole('button', { name: 'Anmelden' }).click();
    // The provider's own page (dev/oidc.ts) is English.
    await page.getByLabel('User').fill('vera');
    await page.getByLabel('Password').fill('vera-demo');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/console/`);
    await page.locator('#live.on').waitFor({ timeout: 30000 });
    await expect(page.locator('header h1').textContent()).resolves.toBe('PCX Disponenten-Konsole');
    await expect(page.title()).resolves.toMatch(/PCX Disponenten-Konsole$/);
    await expect(page.locator('#who').textContent()).resolves.toMatch(/ von Baltic Shippers AB \(Leser\)$/);
    await expect(page.locator('#inbox-title').textContent()).resolves.toContain('Vorschläge');
    await expect(page.locator('#market-title').textContent()).resolves.toBe('Partnermarkt');
    await expect(page.locator('#live').textContent()).resolves.toBe('live');
    await page.locator('#grid-head').getByRole('button', { name: /Aufbau/ }).waitFor({ timeout: 30000 });
    await expect(page.locator('#grid-head').textContent()).resolves.toContain('Relation');
    await expect(page.getByLabel('Sprache').inputValue()).resolves.toBe('de');
    // Dates as a German planner writes them, with a calendar in German (the grid's "Zwischen"); the
    // form's value stays the local time it was (the browser's own date input showed mm/dd/yyyy).
    const from = page.locator('#grid-from');
    // What the planner sees (Playwright reads the text shown) and what the form holds (the field's value).
    const shown = () => from.inputValue();
    const held = () => from.evaluate((e) => (e as HTMLInputElement).value);
    await expect(from.getAttribute('placeholder')).resolves.toBe('TT.MM.JJJJ, hh:mm');
    await from.fill('24.12.2026 8:00');
    await from.press('Tab');
    await expect(held()).resolves.toBe('2026-12-24T08:00');
    await expect(shown()).resolves.toBe('24.12.2026, 08:00');
    await from.click();
    const calendar = page.locator('[data-vc=calendar]');
    await calendar.waitFor({ timeout: 30000 });
    await expect(calendar.textContent()).resolves.toMatch(/Dezember/);
    await calendar.locator('[data-vc-date="2026-12-28"] [data-vc-date-btn]').click();
    await expect(held()).resolves.toBe('2026-12-28T08:00');
    await expect(shown()).resolves.toBe('28.12.2026, 08:00');
    await page.keyboard.press('Escape');
    // Text that is no date: the field says how to write one, and holds nothing.
    await from.fill('31.02.2026 8:00');
    await expect(from.evaluate((e) => (e as HTMLInputElement).validationMessage)).resolves.toContain('TT.MM.JJJJ, hh:mm');
    await expect(held()).resolves.toBe('');
    await from.fill('');
    await page.locator('header h1').click();
    const axe = await new AxeBuilder({ page: page as any }).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await screenshot(page, 'console-17-german');
    // Polski: kept, the page loaded again in it, still signed in.
    await page.getByLabel('Sprache').selectOption('pl');
    await page.locator('header h1', { hasText: 'Konsola spedytora PCX' }).waitFor({ timeout: 30000 });
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('pl');
    await page.locator('#live.on').waitFor({ timeout: 30000 });
    await expect(page.locator('#who').textContent()).resolves.toMatch(/, Baltic Shippers AB \(podgląd\)$/);
    await expect(page.locator('#market-title').textContent()).resolves.toBe('Giełda partnerów');
    await expect(page.getByLabel('Język').inputValue()).resolves.toBe('pl');
    const polishAxe = await new AxeBuilder({ page: page as any }).analyze();
    expect(polishAxe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await screenshot(page, 'console-18-polish');
  }, 90000);

  /** What sticks out of the screen sideways (a phone must never scroll sideways); inside the grid or a wide table, which scroll by themselves, is allowed. */
  const overflowIn = (page: Page) =>
    page.evaluate(() =>
      Array.from(document.querySelectorAll('body *'))
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && getComputedStyle(e).position !== 'fixed' && !e.parentElement?.closest('.grid-wrap, table'))
        .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.split(' ')[0]}` : ''}`)
        .slice(0, 10)
        .concat(document.documentElement.scrollWidth > window.innerWidth + 1 ? [`page ${document.documentElement.scrollWidth} px wide`] : []),
    );
  /** What in the selected proposal's detail reaches past its panel (tables scroll by themselves). */
  const widerThanPanel = (page: Page) =>
    page.evaluate(() => {
      const panel = document.getElementById('detail-pane')!.getBoundingClientRect();
      return Array.from(document.querySelectorAll('#proposal *')).filter((e) => !e.closest('table') && e.getBoundingClientRect().right > panel.right + 1).map((e) => `${e.tagName}#${e.id}.${String(e.className)}`).slice(0, 5);
    });
  /** English a German or Polish planner would read: a sentence of the English catalogue the others say otherwise, or an English word that has no place in either. */
  const englishPhrases = Object.entries(en as Catalogue).filter(([key, text]) => typeof text === 'string' && !text.includes('{') && text.length >= 12 && text !== (de as Catalogue)[key] && text !== (pl as Catalogue)[key]).map(([, text]) => text as string);
  const englishIn = (page: Page) =>
    page.evaluate((phrases) => {
      const text = document.body.innerText;
      return [...phrases.filter((phrase) => text.includes(phrase)), ...new Set(text.match(/\b(the|and|your|with|waiting|accepted|proposal|tender|pickup|delivery|outcome|great-circle|planner)\b/gi) ?? [])];
    }, englishPhrases);

  test("the planner's day in German at the desk and in Polish on a phone: matched, tendered, countered, handed over, delivered and completed; every step axe-clean, within its screen, in its language", async () => {
    const alpine = new PcxClient({ baseUrl: base, clientId: 'alpine-tms', clientSecret: 'alpine-demo-secret' });
    const baltic = new PcxClient({ baseUrl: base, clientId: 'baltic-erp', clientSecret: 'baltic-demo-secret' });
    await partnership(alpine, baltic);
    const bruno = await signedIn('bruno', 'bruno-demo', { locale: 'de-DE', timezoneId: 'Europe/Berlin', viewport: { width: 1440, height: 900 } }, de);
    const alice = await signedIn('alice', 'alice-demo', { locale: 'pl-PL', timezoneId: 'Europe/Warsaw', viewport: { width: 390, height: 844 }, hasTouch: true }, pl);
    const planners = [
      { page: bruno, catalogue: de as Catalogue, name: 'de' },
      { page: alice, catalogue: pl as Catalogue, name: 'pl' },
    ];
    /** After each step, on each planner's screen: no serious accessibility violation, nothing wider than the screen or the detail's panel, no English; a screenshot. */
    const looked = async (step: string) => {
      for (const { page, name } of planners) {
        await screenshot(page, `console-day-${name}-${step}`);
        const axe = await new AxeBuilder({ page: page as any }).analyze();
        expect({ step, name, axe: axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`) }).toEqual({ step, name, axe: [] });
        expect({ step, name, overflow: await overflowIn(page), wider: await widerThanPanel(page), english: await englishIn(page) }).toEqual({ step, name, overflow: [], wider: [], english: [] });
      }
    };
    /** After an action, the planner's keyboard is still in the proposal (the button pressed may be gone from the new drawing). */
    const focusKept = async (page: Page, step: string) => expect({ step, focus: await page.evaluate(() => document.getElementById('proposal')!.contains(document.activeElement)) }).toEqual({ step, focus: true });
    const money = (locale: string, amount: number) => new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR' }).format(amount);
    await looked('1-signed-in');

    // Baltic's load from Bremen to Warsaw and Alpine's truck on that way, through their systems; each
    // planner reads the capital as the language writes it (Warschau, Warszawa).
    const load = await baltic.requests.create({
      pickupArea: { kind: 'unlocode', code: 'DEBRE' },
      pickupWindow: { start: at(26), end: at(30) },
      deliveryArea: { kind: 'unlocode', code: 'PLWAW' },
      deliveryWindow: { start: at(34), end: at(60) },
      requiredCapacity: { weight: { value: 9, unitCode: 'TNE' }, palletSpaces: 12 },
      vehicleRequirements: { bodyTypes: ['curtainsider'] },
      goodsProfile: { category: 'retail' },
      expiresAt: at(20),
      visibility: { mode: 'partners', organizationIds: ['org-alpine-freight'] },
      restrictedDetails: { deliveryAddress: { lines: ['ul. Główna 12'], postalCode: '00-001', city: 'Warszawa', countryCode: 'PL' } },
    } as never);
    await baltic.requests.publish(load);
    const offer = await alpine.offers.create({
      availabilityWindow: { start: at(24), end: at(72) },
      originArea: { kind: 'unlocode', code: 'DEBRE' },
      destinationArea: { kind: 'unlocode', code: 'PLWAW' },
      vehicleProfile: { bodyType: 'curtainsider' },
      availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, palletSpaces: 33 },
      expiresAt: at(20),
      visibility: { mode: 'partners', organizationIds: ['org-baltic-shippers'] },
      restrictedDetails: { price: { amount: 875, currency: 'EUR' } },
    } as never);
    await alpine.offers.publish(offer);
    let proposalId = '';
    for (let i = 0; i < 60 && !proposalId; i++) {
      for await (const p of baltic.proposals.list({ request: load.id, status: ['open'] } as never)) proposalId = (p as any).id;
      if (!proposalId) await new Promise((r) => setTimeout(r, 500));
    }
    expect(proposalId).not.toBe('');

    // Both accept the proposal in their own language, at the same moment (the second decision finds
    // the version moved by the first, and is sent again): matched, in words that do not call it binding.
    for (const { page, name } of planners) {
      await proposalButton(page, proposalId).waitFor({ timeout: 30000 });
      await expect(proposalButton(page, proposalId).textContent()).resolves.toMatch(name === 'de' ? /Bremen → Warschau/ : /Bremen → Warszawa/);
      await proposalButton(page, proposalId).click();
    }
    await Promise.all(planners.map(({ page, catalogue }) => page.locator('#proposal').getByRole('button', { name: say(catalogue, 'proposal.accept'), exact: true }).click()));
    for (const { page, catalogue, name } of planners) {
      await page.locator('#proposal').getByText(like(catalogue, 'proposal.decision.accept', { by: say(catalogue, 'proposal.decision.byYou') })).waitFor({ timeout: 30000 }).catch(async (err) => {
        await screenshot(page, `console-day-${name}-debug-accept`);
        throw new Error(`${err}\n${name}: ${await page.locator('#notice').innerText()}\n${await page.locator('#proposal').innerText()}`);
      });
      await focusKept(page, `accepted (${name})`);
    }
    for (const { page, catalogue, name } of planners) {
      await page.locator('#proposal').getByText(say(catalogue, 'proposal.state.matched')).waitFor({ timeout: 30000 }).catch(async (err) => {
        await screenshot(page, `console-day-${name}-debug-matched`);
        throw new Error(`${err}\n${name}: ${await page.locator('#proposal').innerText()}\n${JSON.stringify(await baltic.proposals.get(proposalId))}`);
      });
    }
    // The broker names its distance model as data ("great-circle x 1.3"): each reads it in words and the locale's numbers.
    await expect(bruno.locator('#proposal .route').textContent()).resolves.toContain('Luftlinie × 1,3 für den Straßenweg');
    await expect(alice.locator('#proposal .route').textContent()).resolves.toContain('w linii prostej × 1,3 na drogi');
    await looked('2-matched');

    // Bruno tenders at the truck's disclosed price; Alice counters from her phone with a reason; Bruno reads it and accepts.
    const tenderPrice = bruno.locator('#proposal').getByLabel(say(de, 'tender.price', { currency: '€' }));
    await expect(tenderPrice.inputValue()).resolves.toBe('875');
    await bruno.locator('#proposal').getByRole('button', { name: say(de, 'tender.issue') }).click();
    const counter = alice.locator('#proposal .tender-actions');
    await counter.waitFor({ timeout: 30000 });
    await counter.getByLabel(say(pl, 'tender.counterPrice', { currency: '€' })).fill('950');
    await counter.getByLabel(say(pl, 'common.reason'), { exact: true }).fill('droższy olej napędowy');
    await counter.getByRole('button', { name: say(pl, 'tender.counter'), exact: true }).click();
    await alice.locator('#proposal').getByText(like(pl, 'tender.waiting', { revision: 2 })).waitFor({ timeout: 30000 });
    await focusKept(alice, 'countered');
    await focusKept(bruno, 'tendered');
    await bruno.locator('#proposal .timeline').getByText(like(de, 'timeline.revision.reason', { reason: 'droższy olej napędowy' })).waitFor({ timeout: 30000 });
    await looked('3-countered');
    await bruno.locator('#proposal').getByRole('button', { name: say(de, 'tender.acceptRevision', { revision: 2 }) }).click();
    for (const { page, catalogue, name } of planners) {
      const commitment = page.locator('#proposal .timeline').getByText(like(catalogue, 'timeline.commitment.price', { revision: 2 }));
      await commitment.waitFor({ timeout: 30000 });
      await expect(commitment.textContent()).resolves.toContain(money(name === 'de' ? 'de-DE' : 'pl-PL', 950));
    }
    await focusKept(bruno, 'accepted the counter');
    await looked('4-committed');

    // Bruno hands the execution details over (the delivery address filled from his load); Alice takes them into her plan.
    const handoverForm = bruno.locator('#proposal .handover-form');
    await handoverForm.waitFor({ timeout: 30000 });
    await expect(handoverForm.getByLabel(say(de, 'handover.street', { stop: `${de['handover.stop.delivery']} 2` })).inputValue()).resolves.toBe('ul. Główna 12');
    await handoverForm.getByLabel(say(de, 'handover.street', { stop: `${de['handover.stop.pickup']} 1` })).fill('Am Speicher 3');
    await handoverForm.getByLabel(say(de, 'handover.phone')).fill('+49 421 123456');
    await handoverForm.getByRole('button', { name: say(de, 'handover.send') }).click();
    const handover = alice.locator('#proposal .handover');
    await handover.getByText(/Am Speicher 3, Bremen/).waitFor({ timeout: 30000 });
    await focusKept(bruno, 'handed over');
    await handover.getByLabel(say(pl, 'handover.tripReference')).fill('K-2412-03');
    await handover.getByRole('button', { name: say(pl, 'handover.take') }).click();
    await bruno.locator('#proposal .handover').getByText(/K-2412-03/).waitFor({ timeout: 30000 });
    await focusKept(alice, 'took the handover');
    await looked('5-handed-over');

    // Alice reports the pickup and the delivery, and finishes the transport: completed, its times filled from the milestones, in Polish writing.
    const report = alice.locator('#proposal .report');
    for (const milestone of ['pickedUp', 'delivered']) {
      await report.getByLabel(say(pl, 'report.milestone'), { exact: true }).selectOption(milestone);
      await report.getByRole('button', { name: say(pl, 'report.sendMilestone') }).click();
      await bruno.locator('#proposal .timeline').getByText(new RegExp(escaped(say(de, `status.${milestone}`)))).first().waitFor({ timeout: 30000 });
      await focusKept(alice, `reported ${milestone}`);
    }
    await alice.locator('#proposal .timeline').getByText(like(pl, 'timeline.execution.awaitingOutcome')).waitFor({ timeout: 30000 });
    await report.getByLabel(say(pl, 'report.outcome'), { exact: true }).selectOption('completed');
    await expect(report.getByLabel(say(pl, 'report.started')).inputValue()).resolves.toMatch(/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/);
    await looked('6-finishing');
    await report.getByRole('button', { name: say(pl, 'report.sendOutcome') }).click();
    for (const { page, catalogue } of planners) await page.locator('#proposal .timeline').getByText(say(catalogue, 'timeline.execution.completed')).waitFor({ timeout: 30000 });
    await focusKept(alice, 'completed');
    await looked('7-completed');
    await alpine.offers.withdraw((await alpine.offers.get(offer.id)) as any, { reason: 'test done' } as never, { redecideOnStale: true }).catch(() => undefined);
    await baltic.requests.withdraw((await baltic.requests.get(load.id)) as any, { reason: 'test done' } as never, { redecideOnStale: true }).catch(() => undefined);
  }, 450000);

  test("a carrier's planner reads its recurring truck in words with its next dates, pauses it, skips a date, is told of a stale version, and ends it; on a phone too", async () => {
    // Alpine's TMS starts a series: Milano to Wien every Tuesday and Thursday, 08:00 to 18:00 Berlin
    // time, each date listed a week ahead (the first dates are published at once). The English page
    // reads Wien as Vienna (CLDR's name; Milano has none there and stays as UN/LOCODE spells it).
    const alpine = new PcxClient({ baseUrl: base, clientId: 'alpine-tms', clientSecret: 'alpine-demo-secret' });
    const connector = async (method: string, path: string, body?: unknown, ifMatch?: number) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${await alpine.accessToken()}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), ...(ifMatch ? { 'if-match': `"${ifMatch}"` } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: await res.json() };
    };
    const first = new Date(Date.now() + 86_400_000);
    while (![2, 4].includes(first.getUTCDay())) first.setUTCDate(first.getUTCDate() + 1);
    const created = await connector('POST', '/listing-series', {
      listingKind: 'capacityOffer',
      terms: {
        originArea: { kind: 'unlocode', code: 'ITMIL' },
        destinationArea: { kind: 'unlocode', code: 'ATVIE' },
        vehicleProfile: { bodyType: 'curtainsider' },
        availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, palletSpaces: 33 },
        visibility: { mode: 'open' },
      },
      recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=TU,TH', timeZone: 'Europe/Berlin', startDate: first.toISOString().slice(0, 10) },
      template: { windows: { availabilityWindow: { time: '08:00', duration: 'PT10H' } }, expiresAt: { before: 'PT2H' } },
      horizon: 'P7D',
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    let series = created.body;
    for (let i = 0; i < 60 && Object.keys(series.occurrences).length === 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      series = (await connector('GET', `/listing-series/${id}`)).body;
    }
    const published = Object.keys(series.occurrences).sort();
    expect(published.length).toBeGreaterThanOrEqual(1);

    const alice = await signedIn('alice', 'alice-demo');
    const card = alice.locator(`#series article[data-series="${id}"]`);
    await card.waitFor({ timeout: 30000 });
    // In words: truck or load, the lane by place names, the rule, the horizon, the status; no ids.
    await expect(card.locator('h3').textContent()).resolves.toMatch(/^Recurring truck Milano → Vienna active$/);
    await expect(card.locator('.series-what').textContent()).resolves.toBe('24 t, 33 pallets · curtainsider');
    await expect(card.locator('.series-rule').textContent()).resolves.toMatch(/^every Tuesday and Thursday, 08:00\sAM–06:00\sPM Berlin time(, from \w{3}, \w{3} \d{1,2}, \d{4})?listed 7 days ahead$/);
    await expect(card.textContent()).resolves.not.toMatch(new RegExp(`${id}|FREQ=|capacityOffer|undefined|NaN|\\[object`));
    // Its next dates: the published ones with their listing's status and window in the planner's zone.
    const dateOf = (key: string) => card.locator(`li.series-date[data-date="${key}"]`);
    await dateOf(published[0]).locator('.state').getByText('published', { exact: true }).waitFor({ timeout: 30000 });
    await expect(dateOf(published[0]).textContent()).resolves.toMatch(/^(Tue|Thu), \w{3} \d{1,2}, \d{4} published · \w{3} \d{1,2}, \d{2}:\d{2}\s[AP]M – \d{2}:\d{2}\s[AP]M \S+Show in the list$/);
    await expect(card.locator('li.series-date.state-notListed').first().textContent()).resolves.toMatch(/not listed yet$/);
    await screenshot(alice, 'console-19-series-read');
    // "Show in the list": the occurrence's row chosen in Trucks and loads.
    const listingId = series.occurrences[published[0]].listingId;
    await dateOf(published[0]).getByRole('button', { name: /^Show in the list: the listing of / }).click();
    await alice.locator(`#grid-rows tr[data-listing="${listingId}"][aria-selected="true"]`).waitFor({ timeout: 10000 });

    // Paused from the console: the broker records it, the card says so.
    await card.getByRole('button', { name: 'Pause', exact: true }).click();
    await alice.locator('#notice').getByText('Done: Pause the recurring truck Milano → Vienna.').waitFor({ timeout: 30000 });
    await card.locator('.series-status').getByText('paused', { exact: true }).waitFor({ timeout: 30000 });
    expect((await connector('GET', `/listing-series/${id}`)).body.status).toBe('paused');
    await expect(card.locator('li.series-date.state-paused').first().textContent()).resolves.toMatch(/not listed while paused$/);
    // A date skipped, with the reason, among those not listed yet.
    const skip = card.locator('form.series-skip');
    const key = await skip.getByLabel('Date to skip').inputValue();
    await skip.getByLabel('Reason (optional)').fill('public holiday');
    await skip.getByRole('button', { name: 'Skip the date' }).click();
    await alice.locator('#notice').getByText(/^Done: Skip .* of the recurring truck Milano → Vienna\.$/).waitFor({ timeout: 30000 });
    await dateOf(key).getByText('skipped: public holiday').waitFor({ timeout: 30000 });
    expect((await connector('GET', `/listing-series/${id}`)).body.skipped).toEqual([expect.objectContaining({ key, reason: 'public holiday' })]);
    await screenshot(alice, 'console-20-series-paused-and-skipped');

    // On a phone whose console is cut from its stream (it does not follow the feed): the card fits
    // the screen, is usable by keyboard, and has no serious accessibility violation.
    const watched = await watchedPage(browser, { viewport: { width: 390, height: 844 }, hasTouch: true });
    pages.push(watched);
    const { page: phone } = watched;
    await phone.route('**/events/stream', (route) => route.abort());
    await phone.goto(`${base}/console/`);
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await phone.getByLabel('User').fill('alice');
    await phone.getByLabel('Password').fill('alice-demo');
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await phone.waitForURL(`${base}/console/`);
    const phoneCard = phone.locator(`#series article[data-series="${id}"]`);
    await phoneCard.locator('.series-status').getByText('paused', { exact: true }).waitFor({ timeout: 30000 });
    await phoneCard.scrollIntoViewIfNeeded();
    const wide = await phone.evaluate(() =>
      Array.from(document.querySelectorAll('#series, #series *'))
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
        .map((e) => `${e.tagName.toLowerCase()}.${String(e.className).split(' ')[0]} ${Math.round(e.getBoundingClientRect().right)}`)
        .concat(document.documentElement.scrollWidth > window.innerWidth + 1 ? [`page ${document.documentElement.scrollWidth} px wide`] : []),
    );
    expect(wide).toEqual([]);
    await screenshot(phone, 'console-21-series-phone');
    const axe = await new AxeBuilder({ page: phone as any }).include('#series').analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);

    // The TMS resumes the series: Alice's console (live) shows it at once; the phone's still shows it
    // paused, and its Resume (by keyboard) meets a version that moved on (409): read again, said so.
    const current = (await connector('GET', `/listing-series/${id}`)).body;
    expect((await connector('POST', `/listing-series/${id}/resume`, {}, current.resourceVersion)).status).toBe(200);
    await card.locator('.series-status').getByText('active', { exact: true }).waitFor({ timeout: 30000 });
    const resume = phoneCard.getByRole('button', { name: 'Resume', exact: true });
    await resume.focus();
    await phone.keyboard.press('Shift+Tab');
    await phone.keyboard.press('Tab');
    await expect(resume.evaluate((node) => node === document.activeElement)).resolves.toBe(true);
    await phone.keyboard.press('Enter');
    await phoneCard.locator('[role="alert"]').getByText(/^The series changed meanwhile and is shown as it is now: check it and try again\. .+/).waitFor({ timeout: 30000 });
    await phoneCard.locator('.series-status').getByText('active', { exact: true }).waitFor({ timeout: 30000 });
    await expect(phone.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(391);
    await screenshot(phone, 'console-22-series-phone-stale-version');
    // Live again: the TMS pauses it; Alice's console shows it without a click.
    const again = (await connector('GET', `/listing-series/${id}`)).body;
    expect((await connector('POST', `/listing-series/${id}/pause`, {}, again.resourceVersion)).status).toBe(200);
    await card.locator('.series-status').getByText('paused', { exact: true }).waitFor({ timeout: 30000 });

    // Ended from the console with a reason: its listings not yet begun are withdrawn.
    const end = card.locator('form.series-end');
    await end.getByLabel('Reason to end').fill('lane dropped');
    await end.getByRole('button', { name: 'End the series' }).click();
    await alice.locator('#notice').getByText('Done: End the recurring truck Milano → Vienna.').waitFor({ timeout: 30000 });
    await card.locator('.series-rule').getByText(/ended on .*: lane dropped/).waitFor({ timeout: 30000 });
    await dateOf(published[0]).locator('.state').getByText('withdrawn', { exact: true }).waitFor({ timeout: 30000 });
    // Nothing left to act on: its other dates withdrawn too (no "Show in the list"), no commands.
    await card.getByRole('button').first().waitFor({ state: 'detached', timeout: 30000 });
    expect((await connector('GET', `/listing-series/${id}`)).body).toMatchObject({ status: 'ended', ending: { reason: 'lane dropped' } });
    await screenshot(alice, 'console-23-series-ended');
  }, 270000);
});
