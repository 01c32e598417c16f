// GET /docs, the interactive API reference (api/docs.ts): what it serves, read with fetch, and
// what a user sees, in headless Chromium (test/browser.ts): every operation of the bundled
// document rendered, nothing loaded from elsewhere, no console error, and the Authorize button
// and "Try it out" working against this broker with a test organization's client credentials.
import type { Browser } from 'playwright-core';
import { launchBrowser, watchedPage, withScreenshot } from './browser';
import { call, freshOrgs, testEnv } from './helpers';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** "METHOD /path" of every operation of a document. */
function operationsOf(doc: any): string[] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) => HTTP_METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${path}`));
}

describe('GET /docs, read with fetch', () => {
  it('is an HTML page without authentication, under a Content-Security-Policy of this origin only, with no inline script', async () => {
    const page = await call('GET', '/docs', undefined);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    expect(csp).not.toMatch(/unsafe-|https?:|\*/);
    // Every script is a file of this origin (the policy would block an inline one anyway).
    const scripts = [...String(page.body).matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, inline] of scripts) expect({ attributes, inline: inline.trim() }).toEqual({ attributes: expect.stringMatching(/src="docs\/assets\//), inline: '' });
  });

  it('serves the files the page names, exactly those the document lists, cacheable and revalidated by ETag', async () => {
    const page = await call('GET', '/docs', undefined);
    const named = [...String(page.body).matchAll(/(?:src|href)="docs\/assets\/([^"]+)"/g)].map((m) => m[1]);
    const documented: string[] = (await call('GET', '/openapi.json', undefined)).body.paths['/docs/assets/{file}'].get.parameters.find((p: any) => p.name === 'file').schema.enum;
    expect([...new Set(named)].sort()).toEqual([...documented].sort());
    for (const file of documented) {
      const asset = await call('GET', `/docs/assets/${file}`, undefined);
      expect({ file, status: asset.status }).toEqual({ file, status: 200 });
      expect({ file, type: asset.headers.get('content-type') }).toEqual({ file, type: expect.stringMatching(/^(text\/javascript|text\/css|image\/png)/) });
      expect({ file, cache: asset.headers.get('cache-control') }).toEqual({ file, cache: 'public, max-age=3600' });
      const etag = asset.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await call('GET', `/docs/assets/${file}`, undefined, undefined, { headers: { 'if-none-match': etag } });
      expect({ file, status: again.status, body: again.body }).toEqual({ file, status: 304, body: undefined });
    }
  });

  it('answers 404 for any other file, of the package or beyond it', async () => {
    // swagger-ui.js and package.json are in the package; the others try to leave the folder.
    for (const file of ['swagger-ui.js', 'package.json', '..%2Fpackage.json', '..%2F..%2F..%2Fpackage.json', '%2Fetc%2Fpasswd', 'constructor', '__proto__']) {
      const reply = await call('GET', `/docs/assets/${file}`, undefined);
      expect({ file, status: reply.status, code: reply.body?.code }).toEqual({ file, status: 404, code: 'RESOURCE_NOT_FOUND' });
    }
    const deeper = await call('GET', '/docs/assets/x/..%2F..%2Fpackage.json', undefined);
    expect({ status: deeper.status, code: deeper.body?.code }).toEqual({ status: 404, code: 'ROUTE_NOT_FOUND' });
  });
});

describe('GET /docs in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('renders every operation of the bundled document, loading nothing from elsewhere and logging no error; Authorize and Try it out work', async () => {
    const { baseUrl, engine } = testEnv();
    const origin = new URL(baseUrl).origin;
    const doc = (await call('GET', '/openapi.bundled.json', undefined)).body;
    const documented = operationsOf(doc).sort();
    expect(documented).toEqual(expect.arrayContaining(['POST /capacity-offers', 'GET /capacity-offers', 'GET /docs', 'POST /oauth2/token']));

    const watched = await watchedPage(browser);
    const { page } = watched;
    try {
      await withScreenshot(page, `api-reference-${engine}`, async () => {
        await page.goto(`${baseUrl}/docs`);
        // Tags start folded (api/docs.ts): one header per tag of the document's operations.
        const tags = [...new Set(Object.values(doc.paths).flatMap((item: any) => Object.values(item).flatMap((op: any) => op?.tags ?? [])))];
        await page.waitForFunction((n) => document.querySelectorAll('.opblock-tag-section').length >= n, tags.length, { timeout: 20000 });
        expect(await page.locator('.info .title').textContent()).toContain(doc.info.title);

        // Each tag unfolded in turn: one block per operation of the document (each has exactly one
        // tag, so none is shown twice), then folded again.
        const rendered: string[] = [];
        const sections = page.locator('.opblock-tag-section');
        for (let i = 0; i < (await sections.count()); i++) {
          const section = sections.nth(i);
          await section.locator('.opblock-tag').click();
          await section.locator('.opblock').first().waitFor();
          rendered.push(
            ...(await section.locator('.opblock').evaluateAll((blocks) =>
              blocks.map((b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
            )),
          );
          await section.locator('.opblock-tag').click();
          await section.locator('.opblock').first().waitFor({ state: 'detached' });
        }
        expect(rendered.sort()).toEqual(documented);
        // The server calls go to: this broker.
        expect(await page.locator('.servers select').inputValue()).toBe(baseUrl);

        // Authorize: the client credentials flow at the document's tokenUrl, /oauth2/token of this broker.
        const [org] = freshOrgs(1);
        await page.locator('.auth-wrapper .btn.authorize').click();
        await page.locator('#client_id_clientCredentials').fill(org.clientId);
        await page.locator('#client_secret_clientCredentials').fill(org.secret);
        const tokenAnswer = page.waitForResponse((r) => r.url() === `${origin}/oauth2/token`);
        await page.locator('.auth-btn-wrapper .modal-btn.authorize').click();
        expect((await tokenAnswer).status()).toBe(200);
        // Authorized: the dialog offers to log out and shows no error.
        await page.locator('.auth-btn-wrapper button', { hasText: 'Logout' }).waitFor();
        expect(await page.locator('.modal-ux .errors').count()).toBe(0);
        await page.locator('.auth-btn-wrapper .btn-done').click();

        // Try it out: GET /capacity-offers with the token, answered 200 inside the page.
        await page.locator('#operations-tag-CapacityOffers').click();
        const list = page.locator('#operations-CapacityOffers-listCapacityOffers');
        await list.locator('.opblock-summary-control').click();
        await list.locator('.try-out__btn').click();
        const listAnswer = page.waitForResponse((r) => r.url().startsWith(`${origin}/capacity-offers`) && r.request().method() === 'GET');
        await list.locator('.execute').click();
        const answer = await listAnswer;
        expect(answer.status()).toBe(200);
        expect(await answer.request().headerValue('authorization')).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
        const shown = list.locator('.live-responses-table .response');
        await shown.waitFor();
        expect((await shown.locator('.response-col_status').textContent())?.trim()).toBe('200');
        expect(await shown.locator('.response-col_description .microlight').first().textContent()).toContain('"items"');

        expect(watched.origins()).toEqual([origin]);
        expect(watched.errors).toEqual([]);
      });
    } finally {
      await watched.close();
    }
  });

  it('opened under another name than PUBLIC_BASE_URL (localhost for 127.0.0.1), calls the broker where it was opened', async () => {
    const { baseUrl, engine } = testEnv();
    expect(new URL(baseUrl).hostname).toBe('127.0.0.1'); // test/stack.ts; the test needs a second name for the same broker
    const other = baseUrl.replace('127.0.0.1', 'localhost');
    const watched = await watchedPage(browser);
    try {
      await withScreenshot(watched.page, `api-reference-localhost-${engine}`, async () => {
        await watched.page.goto(`${other}/docs`);
        await watched.page.locator('.opblock-tag').first().waitFor({ timeout: 20000 });
        expect(await watched.page.locator('.servers select').inputValue()).toBe(other);
        expect(watched.origins()).toEqual([new URL(other).origin]);
        expect(watched.errors).toEqual([]);
      });
    } finally {
      await watched.close();
    }
  });
});
