import { chromium, type BrowserContext } from 'playwright-core';
import { tempDir } from './tmp.js';

/** Debian's chromium (apt-get install chromium); a browser is never downloaded. */
export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

type ContextOptions = NonNullable<Parameters<typeof chromium.launchPersistentContext>[1]>;

/**
 * Chromium with a fresh profile in a temporary folder and JavaScript off (the status page has
 * none); `close` ends it and removes the profile.
 */
export async function launchChromium(
  opts: Omit<ContextOptions, 'executablePath' | 'args' | 'headless'> = {},
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = tempDir('punchgate-chromium-');
  const context = await chromium.launchPersistentContext(profile.dir, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    headless: true,
    javaScriptEnabled: false,
    ...opts,
  });
  return {
    context,
    close: async () => {
      await context.close();
      profile.cleanup();
    },
  };
}
