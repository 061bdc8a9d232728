#!/usr/bin/env node
// Assembles the file set of a runtime image: `node deploy/docker/assemble-runtime.mjs <package dir> <out dir>`.
//
// Run after `node deploy/build/bundle.mjs <package dir>`. Into <out dir> it puts:
//   - the bundle: start.js, register-telemetry.js, their source maps and package.json (never the
//     checkout's dist/node_modules links, which point into this workspace);
//   - node_modules with only dist/package.json's dependencies (`npm install --omit=dev`, no
//     install scripts, no lockfile written);
//   - the workspace's pnpm patches (root package.json `pnpm.patchedDependencies`) applied to the
//     installed packages they name at the same version, so the image runs the code the tests ran.
// The Dockerfile's build stage runs it and the runtime stage copies <out dir> as /app; the container
// tests run it too, so that what they start is what the image holds.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Files of dist/ that the image runs (the entry points, their maps, the manifest). */
const REQUIRED = ['start.js', 'register-telemetry.js', 'package.json'];

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

function copyBundle(distDir, outDir) {
  for (const file of REQUIRED) {
    if (!existsSync(path.join(distDir, file))) {
      throw new Error(`${path.join(distDir, file)} is missing: run node deploy/build/bundle.mjs first`);
    }
  }
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const entry of readdirSync(distDir, { withFileTypes: true })) {
    if (entry.isFile()) copyFileSync(path.join(distDir, entry.name), path.join(outDir, entry.name));
  }
}

function installDependencies(outDir) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(
    npm,
    [
      'install',
      '--omit=dev',
      '--ignore-scripts',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
    ],
    { cwd: outDir, stdio: ['ignore', 'inherit', 'inherit'] },
  );
}

/** Applies each pnpm patch whose package is installed at the patched version; returns what it applied. */
function applyPatches(outDir) {
  const patched = readJson(path.join(repoRoot, 'package.json')).pnpm?.patchedDependencies ?? {};
  const applied = [];
  for (const [spec, patchFile] of Object.entries(patched)) {
    const at = spec.lastIndexOf('@');
    const [name, version] = [spec.slice(0, at), spec.slice(at + 1)];
    const packageDir = path.join(outDir, 'node_modules', name);
    if (!existsSync(path.join(packageDir, 'package.json'))) continue;
    const installed = readJson(path.join(packageDir, 'package.json')).version;
    if (installed !== version) {
      throw new Error(`${name} is installed at ${installed} but the workspace patches ${version}`);
    }
    // `git apply` as a plain patch tool: no repository above the package directory may be used.
    const options = {
      cwd: packageDir,
      env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(packageDir) },
      stdio: ['ignore', 'inherit', 'inherit'],
    };
    const patch = path.join(repoRoot, patchFile);
    execFileSync('git', ['apply', patch], options);
    execFileSync('git', ['apply', '--check', '--reverse', patch], options); // it really is applied
    applied.push(spec);
  }
  return applied;
}

const [packageArg, outArg] = process.argv.slice(2);
if (!packageArg || !outArg) {
  console.error('usage: node deploy/docker/assemble-runtime.mjs <package dir> <out dir>');
  process.exit(2);
}
try {
  const outDir = path.resolve(outArg);
  copyBundle(path.resolve(packageArg, 'dist'), outDir);
  installDependencies(outDir);
  const applied = applyPatches(outDir);
  const deps = Object.keys(readJson(path.join(outDir, 'package.json')).dependencies ?? {});
  process.stdout.write(
    `${outDir}: bundle and ${deps.length} dependencies` +
      (applied.length > 0 ? `, patched: ${applied.join(', ')}` : '') +
      '\n',
  );
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
