// For the console's tests: a real headless Chromium (Debian's `chromium`, which .ci/run installs),
// driven by playwright-core. A test that needs it fails — it is never skipped — when it is missing.
import { execFileSync } from 'node:child_process';
import { type Browser, chromium } from 'playwright-core';

/** Where Chromium is: `KSADK_TEST_CHROMIUM`, else the first of the usual names on PATH. */
export function chromiumPath(): string {
  const given = process.env['KSADK_TEST_CHROMIUM'];
  if (given) return given;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']) {
    try {
      return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
    } catch {
      // not this one
    }
  }
  throw new Error(
    'No Chromium found: install it (apt-get install chromium) or set KSADK_TEST_CHROMIUM to its path.',
  );
}

/** A headless Chromium; as root (containers, CI) without its sandbox, which needs a normal user. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}
