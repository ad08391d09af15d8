/*
 * Debian's chromium for tests that look at a page as a person would: headless, driven by playwright-core, kept off
 *   the network but for the loopback pages a test opens.
 */
import { existsSync } from "node:fs";
import { chromium, type BrowserContext } from "playwright-core";

/** Where Debian's chromium package installs the browser. */
export const CHROMIUM = "/usr/bin/chromium";

/** Headless, no sandbox (root in a container), and nothing of its own that reaches the network. */
export const CHROMIUM_FLAGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** What a chromium test lacks, for need(): false when the browser is installed. */
export function chromiumMissing(): string | false {
  return existsSync(CHROMIUM) ? false : "chromium (Debian package chromium, at /usr/bin/chromium)";
}

/** Starts chromium with its profile in `profileDir`; the caller closes the context. */
export function launchChromium(profileDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_FLAGS],
  });
}
