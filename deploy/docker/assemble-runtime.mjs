#!/usr/bin/env node
// Assembles the file set of a runtime image: `node deploy/docker/assemble-runtime.mjs <package dir> <out dir>`.
//
// Run after `pnpm install --frozen-lockfile` and `node deploy/build/bundle.mjs <package dir>`. Into
// <out dir> it puts:
//   - the bundle: start.js, register-telemetry.js, their source maps and package.json (never the
//     checkout's dist/node_modules links, which point into this workspace);
//   - node_modules with exactly the packages the frozen install put in the workspace for the
//     bundle's externals (dist/package.json) and everything they depend on, copied out of pnpm's
//     store layout (node_modules/.pnpm) into a flat tree that Node resolves from /app: the
//     lockfile's versions, with the workspace's patches already applied by pnpm, nothing resolved
//     afresh and nothing fetched (what `pnpm deploy --prod` does, without its install into the
//     workspace);
// and checks that every external is installed at the version the bundle was built against, that
// every copied package resolves its dependencies to the copies of the versions the workspace
// resolved, and that each patch of root package.json `pnpm.patchedDependencies` is applied.
// The Dockerfile's build stage runs it and the runtime stage copies <out dir> as /app; the container
// tests run it too, so that what they start is what the image holds.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { createRequire } from 'node:module';
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

/** The installed directory (real path) of `name` as Node resolves it from `fromDir`, or undefined. */
function installedDir(name, fromDir) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return realpathSync(candidate);
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** What a package needs at run time: its dependencies, and the optional and peer ones pnpm installed. */
function runtimeDependencies(dir) {
  const manifest = readJson(path.join(dir, 'package.json'));
  const names = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const found = [];
  for (const name of names) {
    const resolved = installedDir(name, dir);
    if (resolved) found.push([name, resolved]);
    else if (manifest.dependencies?.[name])
      throw new Error(`${manifest.name}: dependency ${name} is not installed`);
  }
  return found;
}

/**
 * Copies the externals and their dependency closure out of the workspace's install into a flat
 * node_modules. The externals go to the top first, every one of them: the bundle requires them from
 * there. Then their dependencies: a package goes to the top unless another version holds that name
 * there, then it is nested under the package that needs it (Express's ipaddr.js 1 under proxy-addr,
 * beside the bundle's own ipaddr.js 2). Returns each copy with the real directory it came from.
 */
function copyDependencies(externals, outDir) {
  const modules = path.join(outDir, 'node_modules');
  const top = new Map(); // name -> source real path at out/node_modules/<name>
  const copies = new Map(); // copy dir -> source real path
  const copyTo = (copy, source) => {
    cpSync(source, copy, { recursive: true, dereference: true });
    copies.set(copy, source);
  };
  const placeDependencies = (copy, source) => {
    for (const [dep, depSource] of runtimeDependencies(source)) place(dep, depSource, copy);
  };
  const place = (name, source, parentCopy) => {
    let copy;
    if (top.get(name) === source) return;
    if (!top.has(name)) {
      copy = path.join(modules, name);
      top.set(name, source);
    } else {
      copy = path.join(parentCopy, 'node_modules', name);
      if (copies.has(copy)) return;
    }
    copyTo(copy, source);
    placeDependencies(copy, source);
  };
  for (const [name, source] of externals) {
    top.set(name, source);
    copyTo(path.join(modules, name), source);
  }
  for (const [name, source] of externals) placeDependencies(path.join(modules, name), source);
  return copies;
}

/** Each copy resolves every dependency to a copy of the very package the workspace resolved. */
function checkResolution(copies) {
  const versionOf = (dir) => readJson(path.join(dir, 'package.json')).version;
  for (const [copy, source] of copies) {
    const requireFromCopy = createRequire(path.join(copy, 'package.json'));
    for (const [dep, depSource] of runtimeDependencies(source)) {
      let manifest;
      try {
        manifest = requireFromCopy.resolve(`${dep}/package.json`);
      } catch {
        manifest = undefined; // a package without an exported package.json: checked by location
      }
      const resolvedDir = manifest ? path.dirname(manifest) : installedDir(dep, copy);
      if (!resolvedDir || versionOf(resolvedDir) !== versionOf(depSource)) {
        throw new Error(`${copy}: ${dep} resolves to ${resolvedDir ?? 'nothing'}, not ${depSource}`);
      }
    }
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

/** Each pnpm patch whose package is installed is applied (pnpm applied it in the store); returns them. */
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
  const distDir = path.join(path.resolve(packageArg), 'dist');
  copyBundle(distDir, outDir);
  // The externals as the bundle resolves them in the workspace (dist/node_modules links included).
  const externals = Object.keys(readJson(path.join(distDir, 'package.json')).dependencies ?? {}).map(
    (name) => {
      const source = installedDir(name, distDir);
      if (!source) throw new Error(`${name} (imported by the bundle) is not installed: run pnpm install`);
      return [name, source];
    },
  );
  const copies = copyDependencies(externals, outDir);
  checkResolution(copies);
  checkExternals(outDir);
  const applied = checkPatches(outDir);
  process.stdout.write(
    `${outDir}: bundle and ${copies.size} packages as the lockfile installed them ` +
      `(${externals.length} imported by the bundle)` +
      (applied.length > 0 ? `, patched: ${applied.join(', ')}` : '') +
      '\n',
  );
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
