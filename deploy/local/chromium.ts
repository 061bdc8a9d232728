// The browser of the developer portal's end-to-end tests: Debian's `chromium` (playwright-core
// drives it; a test tool's own browser download does not work on a closed network). Installed with
// apt-get when it is missing, as root or through sudo.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export function ensureChromium(log: (message: string) => void): void {
  if (fs.existsSync(CHROMIUM_PATH)) return;
  log('chromium is missing: installing it with apt-get');
  const asRoot = process.getuid?.() === 0;
  const run = (args: string[]) => {
    const [cmd, ...rest] = asRoot ? args : ['sudo', '-n', ...args];
    const result = spawnSync(cmd!, rest, {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    return result.status === 0;
  };
  if (!run(['apt-get', 'install', '-y', '--no-install-recommends', 'chromium'])) {
    run(['apt-get', 'update']);
    if (!run(['apt-get', 'install', '-y', '--no-install-recommends', 'chromium']))
      throw new Error(
        'could not install chromium with apt-get (the portal browser tests need /usr/bin/chromium)',
      );
  }
}
