// Headless Chromium for the browser tests: Debian's package (/usr/bin/chromium, which
// `node scripts/setup.mjs --test` installs as root) driven by playwright-core; Playwright's own
// browser download cannot work on these machines. A watched page records what a test asserts
// about a page as a whole: every request it made, console errors and uncaught exceptions.
// Screenshots are artifacts of the test run, kept beside the broker's log under testEnv().dir.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testEnv } from './helpers';

/** The browser binary: Debian's chromium unless PCX_CHROMIUM names another. */
export const CHROMIUM = process.env.PCX_CHROMIUM ?? '/usr/bin/chromium';

/** WebGL in headless Chromium (the console's map): software rendering through SwiftShader. */
export const WEBGL_ARGS = ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: run \`node scripts/setup.mjs --test\` as root (it installs Debian's chromium), ` +
        `or \`apt-get install -y --no-install-recommends chromium\`, or name a binary with PCX_CHROMIUM`,
    );
  }
  // --no-sandbox: the tests run as root, where Chromium's sandbox refuses to start.
  // --disable-gpu-compositing: pages composited in software, WebGL (the map) still drawn by
  // SwiftShader; compositing through SwiftShader was half of the console test's Chromium CPU
  // (GPU process 105 -> 54 CPU-s, the test 328 -> 274 busy CPU-s, same session).
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu-compositing', ...extraArgs] });
}

export interface WatchedPage {
  page: Page;
  /** Every request the page made, in order: `METHOD url`. */
  requests: string[];
  /** console.error messages (CSP violations among them), uncaught exceptions and failed requests. */
  errors: string[];
  /** The origins of every request the page made. */
  origins(): string[];
  close(): Promise<void>;
}

/**
 * A fresh context (no cookies, storage or cache of another test) and a page in it, watched from its
 * first request. The browser's language is `locale`, en-US unless a test asks for another (the
 * console speaks the browser's language: the tests that read its English must not depend on the
 * machine's).
 */
export async function watchedPage(browser: Browser, options: { viewport?: { width: number; height: number }; permissions?: string[]; hasTouch?: boolean; locale?: string; timezoneId?: string } = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 }, permissions: options.permissions, hasTouch: options.hasTouch, locale: options.locale ?? 'en-US', timezoneId: options.timezoneId });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(`${r.method()} ${r.url()}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  return {
    page,
    requests,
    errors,
    origins: () => [...new Set(requests.map((r) => new URL(r.slice(r.indexOf(' ') + 1)).origin))],
    close: () => context.close(),
  };
}

/** Where this run's screenshots go: `<testEnv().dir>/artifacts` (the run's folder, kept after it). */
export function artifactsDir(): string {
  const dir = join(testEnv().dir, 'artifacts');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Saves a full-page screenshot as `<artifactsDir()>/<name>.png` and says where. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const file = join(artifactsDir(), `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`);
  await page.screenshot({ path: file, fullPage: true });
  process.stderr.write(`[browser] screenshot: ${file}\n`);
  return file;
}

/** Runs `steps` on the page; a screenshot named after the test is taken either way (`-failed` when a step threw). */
export async function withScreenshot(page: Page, name: string, steps: () => Promise<void>): Promise<void> {
  try {
    await steps();
  } catch (err) {
    await screenshot(page, `${name}-failed`).catch((e) => process.stderr.write(`[browser] no screenshot: ${e}\n`));
    throw err;
  }
  await screenshot(page, name);
}
