// Runs deploy/build/bundle.mjs on a package as the image build and `./dev up` do, in a package
// directory outside the checkout whose entries (sources, manifest, node_modules) are links to the
// checkout's: the same inputs and script, without rewriting <package>/dist under tests that run the
// checkout's bundle at the same time.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../helm-tool/chart';

const run = promisify(execFile);
const bundler = path.join(repoRoot, 'deploy/build/bundle.mjs');

/** A new directory outside the checkout standing for `packageDir` (relative to the repository), its dist/ not copied. */
function linkedPackageCopy(packageDir: string): string {
  const source = path.join(repoRoot, packageDir);
  const copy = path.join(
    fs.mkdtempSync(path.join(os.tmpdir(), 'ordering-bundle-')),
    path.basename(packageDir),
  );
  fs.mkdirSync(copy);
  for (const entry of fs.readdirSync(source)) {
    if (entry !== 'dist' && !entry.startsWith('.dist-staging-')) {
      fs.symlinkSync(path.join(source, entry), path.join(copy, entry));
    }
  }
  return copy;
}

/** Runs the bundler on a package directory; its summary line. */
export async function runBundler(dir: string): Promise<string> {
  return (await run(process.execPath, [bundler, dir], { cwd: repoRoot })).stdout;
}

/** Bundles a linked copy of `packageDir`; the copy's directory, its dist/ written. */
export async function bundleCopy(packageDir: string): Promise<string> {
  const copy = linkedPackageCopy(packageDir);
  await runBundler(copy);
  return copy;
}
