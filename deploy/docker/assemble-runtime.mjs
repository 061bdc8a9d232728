#!/usr/bin/env node
// Assembles the file set of a runtime image: `node deploy/docker/assemble-runtime.mjs <package dir> <out dir>`.
//
// Run after `node deploy/build/bundle.mjs <package dir>`. Into <out dir> it puts:
//   - the bundle: start.js, register-telemetry.js, their source maps and package.json (never the
//     checkout's dist/node_modules links, which point into this workspace);
//   - node_modules with the package's production dependencies at exactly the versions of
//     pnpm-lock.yaml, with the workspace's patches applied: `pnpm deploy --prod` of the package (flat,
//     node-linker=hoisted, so that the bundle at the top resolves every external it imports), with
//     no resolution of its own. The workspace packages it copies are dropped: they are in the bundle.
// It then checks that every external of the bundle (dist/package.json) is installed at its exact
// version and that every patch of root package.json `pnpm.patchedDependencies` is applied.
// The Dockerfile's build stage runs it and the runtime stage copies <out dir> as /app; the container
// tests run it too, so that what they start is what the image holds.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Files of dist/ that the image runs (the entry points, their maps, the manifest). */
const REQUIRED = ['start.js', 'register-telemetry.js', 'package.json'];
/** What `pnpm deploy` leaves in node_modules that the image does not run. */
const NOT_RUN = ['.bin', '.pnpm', '.modules.yaml', '@ordering'];

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

/** `pnpm deploy --prod` of the workspace package `name` (lockfile versions, patches), into out/node_modules. */
function deployDependencies(name, outDir) {
  const scratch = mkdtempSync(path.join(path.dirname(outDir), `.deploy-${path.basename(outDir)}-`));
  const target = path.join(scratch, 'package');
  try {
    const args = [
      '--filter',
      name,
      'deploy',
      '--prod',
      '--legacy',
      '--frozen-lockfile',
      '--prefer-offline',
      '--config.node-linker=hoisted',
      // The workspace's patches name packages that not every process depends on (kafkajs).
      '--config.allow-unused-patches=true',
      '--reporter=append-only',
      target,
    ];
    try {
      execFileSync('pnpm', args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    } catch (err) {
      throw new Error(`pnpm ${args.join(' ')} failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`, {
        cause: err,
      });
    }
    const modules = path.join(target, 'node_modules');
    for (const entry of NOT_RUN) rmSync(path.join(modules, entry), { recursive: true, force: true });
    renameSync(modules, path.join(outDir, 'node_modules'));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Every external the bundle imports is installed at the version it was bundled against. */
function checkExternals(outDir) {
  const dependencies = readJson(path.join(outDir, 'package.json')).dependencies ?? {};
  for (const [dep, version] of Object.entries(dependencies)) {
    const manifest = path.join(outDir, 'node_modules', dep, 'package.json');
    if (!existsSync(manifest)) throw new Error(`${dep} (imported by the bundle) is not installed`);
    const installed = readJson(manifest).version;
    if (installed !== version)
      throw new Error(`${dep} is installed at ${installed}, the bundle needs ${version}`);
  }
  return Object.keys(dependencies);
}

/** Each pnpm patch whose package is installed is applied (pnpm applies them); returns them. */
function checkPatches(outDir) {
  const patched = readJson(path.join(repoRoot, 'package.json')).pnpm?.patchedDependencies ?? {};
  const applied = [];
  for (const [spec, patchFile] of Object.entries(patched)) {
    const at = spec.lastIndexOf('@');
    const [dep, version] = [spec.slice(0, at), spec.slice(at + 1)];
    const packageDir = path.join(outDir, 'node_modules', dep);
    if (!existsSync(path.join(packageDir, 'package.json'))) continue;
    const installed = readJson(path.join(packageDir, 'package.json')).version;
    if (installed !== version) {
      throw new Error(`${dep} is installed at ${installed} but the workspace patches ${version}`);
    }
    // `git apply` as a plain patch tool: no repository above the package directory may be used.
    execFileSync('git', ['apply', '--check', '--reverse', path.join(repoRoot, patchFile)], {
      cwd: packageDir,
      env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(packageDir) },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
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
  const packageDir = path.resolve(packageArg);
  copyBundle(path.join(packageDir, 'dist'), outDir);
  deployDependencies(readJson(path.join(packageDir, 'package.json')).name, outDir);
  const externals = checkExternals(outDir);
  const applied = checkPatches(outDir);
  process.stdout.write(
    `${outDir}: bundle and ${readdirSync(path.join(outDir, 'node_modules')).length} packages at the lockfile's versions ` +
      `(${externals.length} imported by the bundle)` +
      (applied.length > 0 ? `, patched: ${applied.join(', ')}` : '') +
      '\n',
  );
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
