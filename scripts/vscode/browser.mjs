// Debian's chromium driven by playwright-core (no browser download). Shared by the test shim and the
// UI tests so both start the browser the same way.
import { join } from 'node:path';
import { cacheDir, chromiumPath } from './paths.mjs';

const CHROMIUM_ARGS = [
  '--no-sandbox', // we run as root in CI containers
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage', // containers often have a tiny /dev/shm
];

/** Launches headless chromium with a fresh temporary profile (playwright creates and deletes it). */
export async function launchChromium({ headless = process.env.FOREMAN_HEADED !== '1' } = {}) {
  const executablePath = chromiumPath();
  if (!executablePath) {
    throw new Error('chromium not found (looked at $FOREMAN_CHROMIUM, /usr/bin/chromium); run: node scripts/vscode/provision.mjs');
  }
  let playwright;
  try {
    playwright = await import('playwright-core');
  } catch {
    throw new Error('playwright-core is not installed; run: npm install (it is a devDependency)');
  }
  const chromium = playwright.chromium ?? playwright.default.chromium;
  // Chromium writes crash-report settings and dconf under the XDG dirs even with a temporary
  // profile: point them into the cache so nothing lands in the home directory.
  const home = join(cacheDir(), 'chromium-xdg');
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_CACHE_HOME: join(home, 'cache'),
    XDG_DATA_HOME: join(home, 'data'),
  };
  return chromium.launch({ executablePath, headless, args: CHROMIUM_ARGS, env });
}
