// promtool (Debian's `prometheus` package) checks and unit-tests the chart's alert rules. The test
// command's infrastructure stage installs it when it is missing, as it fetches Helm.
import { execFileSync } from 'node:child_process';

function onPath(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function ensurePromtool(log: (m: string) => void = () => {}): void {
  if (onPath('promtool')) return;
  const root = process.getuid?.() === 0;
  if (!root && !onPath('sudo')) {
    throw new Error(
      'promtool is missing: install Debian\'s "prometheus" package (apt-get install prometheus)',
    );
  }
  log('installing promtool (apt-get install prometheus)');
  const apt = (args: string[]) =>
    execFileSync(root ? 'apt-get' : 'sudo', root ? args : ['apt-get', ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    apt(['install', '-y', '--no-install-recommends', 'prometheus']);
  } catch {
    apt(['update']);
    apt(['install', '-y', '--no-install-recommends', 'prometheus']);
  }
  if (!onPath('promtool'))
    throw new Error('the prometheus package was installed but promtool is not on PATH');
}
