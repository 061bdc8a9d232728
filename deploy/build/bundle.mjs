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
//   - in this checkout, externals that the package directory cannot resolve (dependencies of a
//     workspace library, which pnpm does not hoist) are linked into dist/node_modules.
// When the package depends (directly or not) on @ordering/telemetry, its register module is
// bundled too, as dist/register-telemetry.js, for `node --require dist/register-telemetry.js`.
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
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

async function bundle(packageDir) {
  const dir = path.resolve(packageDir);
  const packages = collectPackages(dir);
  const { manifest } = packages[0];
  const externals = collectExternals(packages);
  const outdir = path.join(dir, 'dist');
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });

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
  for (const [name, { from }] of externals) {
    if (installedDir(name, dir)) continue; // the package resolves it itself
    const target = installedDir(name, from);
    if (!target) throw new Error(`${name} (a dependency of ${from}) is not installed (run pnpm install)`);
    const link = path.join(outdir, 'node_modules', name);
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(target, link, 'dir');
    linked.push(name);
  }

  const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
  process.stdout.write(
    `${manifest.name}: ${Object.keys(entryPoints)
      .map((e) => `dist/${e}.js`)
      .join(', ')} (${Math.round(bytes / 1024)} KiB with maps), ${externals.size} external dependencies` +
      (linked.length > 0 ? `, linked for this checkout: ${linked.join(', ')}` : '') +
      '\n',
  );
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
