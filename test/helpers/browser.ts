import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium (apt, installed by scripts/setup.mjs); playwright never downloads a browser here. */
const CHROMIUM = process.env.S3AB_CHROMIUM ?? '/usr/bin/chromium';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

export interface OpenedPage {
  page: Page;
  /** console.error messages and uncaught page errors. */
  errors: string[];
  /** Every URL the page asked for besides itself. */
  requests: string[];
  close(): Promise<void>;
}

/** Opens a local HTML file in headless Chromium with a fresh profile, recording errors and requests. */
export async function openInChromium(file: string, viewport = { width: 1400, height: 1000 }): Promise<OpenedPage> {
  const profile = mkdtempSync(join(tmpdir(), 's3ab-chromium-'));
  let context: BrowserContext | null = null;
  try {
    // launchPersistentContext is how playwright takes a --user-data-dir: a fresh one per page.
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport });
    const page = context.pages()[0] ?? (await context.newPage());
    const errors: string[] = [];
    const requests: string[] = [];
    const url = pathToFileURL(file).href;
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
    page.on('request', (r) => { if (r.url() !== url) requests.push(r.url()); });
    await page.goto(url, { waitUntil: 'load' });
    const ctx = context;
    return { page, errors, requests, close: async () => { await ctx.close(); rmSync(profile, { recursive: true, force: true }); } };
  } catch (err) {
    await context?.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
}
