// Types for browser.mjs.
import type { Browser } from 'playwright-core';
export function launchChromium(options?: { headless?: boolean }): Promise<Browser>;
