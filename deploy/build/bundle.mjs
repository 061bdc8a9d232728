#!/usr/bin/env node
// Bundles a service (or the gateway) for running: `node deploy/build/bundle.mjs <package dir>`.
//
//   <dir>/src/start.ts  ->  <dir>/dist/start.js   (platform node, target node24, CommonJS, source map)
//
// Workspace packages (@ordering/*) are compiled into the bundle: they ship TypeScript sources only.
// Every other dependency, of the package and of the workspace packages it bundles, stays external:
// loaded from node_modules at run time, as published (native code, dynamic requires and
// OpenTelemetry's require hooks keep working). So that the output runs on its own:
//   - dist/package.json lists those external dependencies at their exact versions, the manifest a
//     container image installs (`npm install --omit=dev` in dist/);
//   - in this checkout, externals that the package directory cannot resolve, or resolves at another
//     version (dependencies of a workspace library, which pnpm does not hoist, or hoists another
//     version of), are linked into dist/node_modules.
// When the package depends (directly or not) on @ordering/telemetry, its register module is
// bundled too, as dist/register-telemetry.js, for `node --require dist/register-telemetry.js`.
//
// The output is written to a staging folder beside dist/ and then moved into dist/ file by file,
// each by an atomic rename, and only where it differs: a process starting from dist/ while the
// bundle is rebuilt (the test run starts services while its `./dev up` test rebuilds them) reads
// either the old file or the new one, never a missing or half-written one.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const WORKSPACE_SCOPE = '@ordering/';

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** The directory of `name` as installed for the package in `fromDir` (pnpm symlinks, or hoisted). */
function installedDir(name, fromDir) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return realpathSync(candidate);
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The package and every workspace package it reaches, each with its own non-workspace deps. */
function collectPackages(rootDir) {
  const seen = new Map(); // realpath -> { dir, manifest }
  const visit = (dir) => {
    const real = realpathSync(dir);
    if (seen.has(real)) return;
    const manifest = readJson(path.join(real, 'package.json'));
    seen.set(real, { dir: real, manifest });
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      if (!name.startsWith(WORKSPACE_SCOPE)) continue;
      const depDir = installedDir(name, real);
      if (!depDir)
        throw new Error(`${manifest.name}: workspace dependency ${name} is not installed (run pnpm install)`);
      visit(depDir);
    }
  };
  visit(rootDir);
  return [...seen.values()];
}

/** External dependency name -> { version, dir it is installed for }; the package's own win. */
function collectExternals(packages) {
  const externals = new Map();
  for (const { dir, manifest } of packages) {
    for (const [name, version] of Object.entries(manifest.dependencies ?? {})) {
      if (name.startsWith(WORKSPACE_SCOPE) || name.startsWith('@types/')) continue;
      const known = externals.get(name);
      if (known && known.version !== version) {
        console.error(
          `warning: ${name} is ${known.version} for ${known.by} but ${version} for ${manifest.name}; using ${known.version}`,
        );
        continue;
      }
      if (!known) externals.set(name, { version, from: dir, by: manifest.name });
    }
  }
  return externals;
}

/** Whether `a` and `b` are the same file contents, or symbolic links to the same place. */
function sameEntry(a, b) {
  const [sa, sb] = [lstatSync(a, { throwIfNoEntry: false }), lstatSync(b, { throwIfNoEntry: false })];
  if (!sa || !sb) return false;
  if (sa.isSymbolicLink() || sb.isSymbolicLink()) {
    return sa.isSymbolicLink() && sb.isSymbolicLink() && readlinkSync(a) === readlinkSync(b);
  }
  return sa.isFile() && sb.isFile() && sa.size === sb.size && readFileSync(a).equals(readFileSync(b));
}

/**
 * Makes `target` hold what `staging` holds: each changed file or link renamed into place (atomic),
 * unchanged ones left alone, the ones the new build no longer has removed; then `staging` goes.
 */
function publish(staging, target) {
  mkdirSync(target, { recursive: true });
  const staged = new Set(readdirSync(staging));
  for (const name of staged) {
    const from = path.join(staging, name);
    const to = path.join(target, name);
    const stat = lstatSync(from);
    if (stat.isDirectory()) {
      if (lstatSync(to, { throwIfNoEntry: false })?.isDirectory() === false) rmSync(to, { force: true });
      publish(from, to);
    } else if (!sameEntry(from, to)) {
      if (lstatSync(to, { throwIfNoEntry: false })?.isDirectory())
        rmSync(to, { recursive: true, force: true });
      renameSync(from, to);
    }
  }
  for (const name of readdirSync(target)) {
    if (!staged.has(name)) rmSync(path.join(target, name), { recursive: true, force: true });
  }
  rmSync(staging, { recursive: true, force: true });
}

/** Writes the bundle of the package in `dir` into `outdir`; what it wrote, for the summary line. */
async function buildInto(dir, outdir) {
  const packages = collectPackages(dir);
  const { manifest } = packages[0];
  const externals = collectExternals(packages);

  const entryPoints = { start: path.join(dir, 'src', 'start.ts') };
  const telemetry = packages.find((p) => p.manifest.name === `${WORKSPACE_SCOPE}telemetry`);
  if (telemetry) entryPoints['register-telemetry'] = path.join(telemetry.dir, 'src', 'register.ts');

  const names = [...externals.keys()];
  const result = await build({
    entryPoints,
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    sourcemap: true,
    keepNames: true,
    // A package and its subpaths (`pino/file`) are both external.
    external: [...names, ...names.map((n) => `${n}/*`)],
    logLevel: 'warning',
    metafile: true,
  });

  // Only the externals the bundle really imports (a library may declare more than this package uses).
  const imported = new Set();
  for (const input of Object.values(result.metafile.inputs)) {
    for (const imp of input.imports) {
      if (!imp.external) continue;
      const parts = imp.path.split('/');
      imported.add(imp.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
    }
  }
  for (const name of names) if (!imported.has(name)) externals.delete(name);

  writeFileSync(
    path.join(outdir, 'package.json'),
    `${JSON.stringify(
      {
        name: `${manifest.name}-dist`,
        version: manifest.version ?? '0.0.0',
        private: true,
        description: `Bundle of ${manifest.name}: node start.js`,
        type: 'commonjs',
        main: 'start.js',
        dependencies: Object.fromEntries([...externals].map(([name, e]) => [name, e.version]).sort()),
      },
      null,
      2,
    )}\n`,
  );

  const linked = [];
  for (const [name, { from, version }] of externals) {
    // The package resolves it itself, at the version the bundle is built against. Another version
    // (one hoisted for some other package: ipaddr.js 1 of Express beside libs/http's 2) is shadowed
    // by a link to the library's own.
    const own = installedDir(name, dir);
    if (own && readJson(path.join(own, 'package.json')).version === version) continue;
    const target = installedDir(name, from);
    if (!target) throw new Error(`${name} (a dependency of ${from}) is not installed (run pnpm install)`);
    const link = path.join(outdir, 'node_modules', name);
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(target, link, 'dir');
    linked.push(name);
  }

  const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
  return (
    `${manifest.name}: ${Object.keys(entryPoints)
      .map((e) => `dist/${e}.js`)
      .join(', ')} (${Math.round(bytes / 1024)} KiB with maps), ${externals.size} external dependencies` +
    (linked.length > 0 ? `, linked for this checkout: ${linked.join(', ')}` : '')
  );
}

async function bundle(packageDir) {
  const dir = path.resolve(packageDir);
  // A sibling of dist/, so that the source maps' relative paths are the same as from dist/.
  const staging = path.join(dir, `.dist-staging-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  let summary;
  try {
    summary = await buildInto(dir, staging);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  publish(staging, path.join(dir, 'dist'));
  process.stdout.write(`${summary}\n`);
}

const target = process.argv[2];
if (!target) {
  console.error('usage: node deploy/build/bundle.mjs <package dir>');
  process.exit(2);
}
bundle(target).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
