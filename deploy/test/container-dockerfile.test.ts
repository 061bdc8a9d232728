// deploy/docker/Dockerfile and .dockerignore, checked without Docker: the stages use the
// workspace's Node and pnpm versions, every path they copy or run exists and reaches the build
// context, the runtime stage holds only the assembled file set, runs non-root and starts the
// bundle with telemetry first; every process the manifests deploy can be built with PACKAGE.
import fs from 'node:fs';
import path from 'node:path';
import { chartProcesses, landed } from './support/chart-processes';

const repoRoot = path.resolve(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(repoRoot, file), 'utf8');

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
}
interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  image: string;
  name?: string;
  instructions: Instruction[];
}

/** Instructions with continuation lines joined and comments dropped; global ARGs; stages. */
function parseDockerfile(text: string): { globalArgs: Record<string, string>; stages: Stage[] } {
  const lines = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, keyword, args] = /^(\S+)\s+(.*)$/.exec(line)!;
    const instruction = { keyword: keyword!.toUpperCase(), args: args!.replace(/\s+/g, ' ') };
    if (instruction.keyword === 'FROM') {
      const [image, as, name] = instruction.args.split(' ');
      expect(as === undefined || as.toUpperCase() === 'AS').toBe(true);
      stages.push({ image: image!, name, instructions: [] });
    } else if (stages.length === 0) {
      expect(instruction.keyword).toBe('ARG');
      const [key, value] = instruction.args.split('=');
      globalArgs[key!] = value ?? '';
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
}

/** Whether .dockerignore keeps `file` (a path relative to the context) out of the build context. */
function ignored(patterns: string[], file: string): boolean {
  let result = false;
  const parts = file.split('/');
  for (const raw of patterns) {
    const negate = raw.startsWith('!');
    const pattern = (negate ? raw.slice(1) : raw).replace(/^\/+/, '').replace(/\/+$/, '');
    const regex = new RegExp(
      `^${pattern
        .split(/(\*\*\/?|\*|\?)/)
        .map((t) =>
          t.startsWith('**')
            ? '(?:.*/)?'
            : t === '*'
              ? '[^/]*'
              : t === '?'
                ? '[^/]'
                : t.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
        )
        .join('')}$`,
    );
    // A pattern that matches a parent directory excludes everything under it.
    if (parts.some((_, i) => regex.test(parts.slice(0, i + 1).join('/')))) result = !negate;
  }
  return result;
}

const rootManifest = JSON.parse(read('package.json'));
const dockerfile = parseDockerfile(read('deploy/docker/Dockerfile'));
const dockerignore = read('.dockerignore')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const [build, runtime] = [dockerfile.stages[0]!, dockerfile.stages.at(-1)!];
const runs = (stage: Stage) => stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
const argDefault = (stage: Stage, name: string) =>
  stage.instructions.find((i) => i.keyword === 'ARG' && i.args.startsWith(`${name}=`))?.args.split('=')[1];

/** Workspace packages (pnpm-workspace.yaml globs of one level) with their manifests. */
function workspacePackages(): Map<string, { dir: string; manifest: Manifest }> {
  const globs = [...read('pnpm-workspace.yaml').matchAll(/^\s*-\s*['"]?([^'"\s]+)/gm)].map((m) => m[1]!);
  const dirs = globs.flatMap((g) =>
    g.endsWith('/*')
      ? fs.readdirSync(path.join(repoRoot, g.slice(0, -2))).map((d) => `${g.slice(0, -2)}/${d}`)
      : [g],
  );
  const packages = new Map<string, { dir: string; manifest: Manifest }>();
  for (const dir of dirs) {
    const file = path.join(repoRoot, dir, 'package.json');
    if (fs.existsSync(file)) {
      const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
      packages.set(manifest.name, { dir, manifest });
    }
  }
  return packages;
}

describe('deploy/docker/Dockerfile', () => {
  it('builds on the workspace Node (pinned to its minor) with the workspace pnpm, and runs on the slim variant', () => {
    const [major, minor] = String(rootManifest.devDependencies.node).split('.');
    expect(dockerfile.globalArgs.NODE_VERSION).toBe(`${major}.${minor}`);
    expect(dockerfile.stages).toHaveLength(2);
    expect(build.image).toBe('node:${NODE_VERSION}-bookworm');
    expect(build.name).toBe('build');
    expect(runtime.image).toBe('node:${NODE_VERSION}-bookworm-slim');
    expect(`pnpm@${argDefault(build, 'PNPM_VERSION')}`).toBe(rootManifest.packageManager);
  });

  it('installs the workspace from the frozen lockfile, bundles the package and assembles the runtime file set', () => {
    const commands = runs(build).join('\n');
    expect(commands).toMatch(/pnpm fetch --frozen-lockfile/);
    expect(commands).toMatch(/pnpm install --frozen-lockfile/);
    expect(commands).toMatch(/node deploy\/build\/bundle\.mjs "\$\{PACKAGE\}"/);
    expect(commands).toMatch(/node deploy\/docker\/assemble-runtime\.mjs "\$\{PACKAGE\}" \/out/);
    // The runtime dependencies are copied out of the frozen install: the script runs no package
    // manager, and npm installs pnpm itself, nothing else.
    const order = runs(build).map((r) =>
      /pnpm install --frozen-lockfile/.test(r)
        ? 'install'
        : r.includes('assemble-runtime.mjs')
          ? 'assemble'
          : '',
    );
    expect(order.indexOf('install')).toBeLessThan(order.indexOf('assemble'));
    expect(read('deploy/docker/assemble-runtime.mjs')).not.toMatch(
      /execFileSync\(\s*'p?npm'|spawn\w*\(\s*'p?npm'/,
    );
    expect(runs(build).filter((r) => /(^|[\s;&|])npm (install|ci)\b/.test(r))).toEqual([
      'npm install --global --no-audit --no-fund pnpm@${PNPM_VERSION}',
    ]);
    // Every repository script a RUN names exists.
    for (const script of commands.match(/deploy\/[\w./-]+\.m?[jt]s/g) ?? []) {
      expect(`${script} ${fs.existsSync(path.join(repoRoot, script))}`).toBe(`${script} true`);
    }
  });

  it('copies only paths that exist and that .dockerignore lets into the build context', () => {
    const copies = dockerfile.stages.flatMap((s) => s.instructions.filter((i) => i.keyword === 'COPY'));
    const fromContext = copies.filter((c) => !c.args.startsWith('--from='));
    expect(fromContext.length).toBeGreaterThan(0);
    for (const copy of fromContext) {
      const words = copy.args.split(' ').filter((w) => !w.startsWith('--'));
      for (const source of words.slice(0, -1)) {
        if (source === '.') continue;
        const file = source.replace(/\/$/, '');
        expect(`${file} exists: ${fs.existsSync(path.join(repoRoot, file))}`).toBe(`${file} exists: true`);
        expect(`${file} ignored: ${ignored(dockerignore, file)}`).toBe(`${file} ignored: false`);
      }
    }
  });

  it('the build context holds what the install and the bundler need, and none of the checkout state', () => {
    const needed = [
      'package.json',
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
      '.npmrc',
      'deploy/build/bundle.mjs',
      'deploy/docker/assemble-runtime.mjs',
      ...Object.values(rootManifest.pnpm.patchedDependencies as Record<string, string>),
      // pnpm install --frozen-lockfile needs every workspace package's manifest.
      ...[...workspacePackages().values()].map((p) => `${p.dir}/package.json`),
      'services/customers/src/start.ts',
      'libs/telemetry/src/register.ts',
    ];
    for (const file of needed) {
      expect(`${file} ignored: ${ignored(dockerignore, file)}`).toBe(`${file} ignored: false`);
    }
    for (const file of [
      'node_modules/x',
      'gateway/node_modules/x',
      'gateway/dist/start.js',
      '.git/HEAD',
      '.local/stack.json',
    ]) {
      expect(`${file} ignored: ${ignored(dockerignore, file)}`).toBe(`${file} ignored: true`);
    }
  });

  it('the runtime stage takes the assembled file set from the build stage, and nothing else', () => {
    const copies = runtime.instructions.filter((i) => i.keyword === 'COPY');
    expect(copies.map((c) => c.args)).toEqual(['--from=build /out/ /app/']);
    expect(runtime.instructions.find((i) => i.keyword === 'WORKDIR')?.args).toBe('/app');
    expect(runs(runtime).join('\n')).not.toMatch(/npm (install|ci)|pnpm/);
    expect(runtime.instructions.some((i) => i.keyword === 'ENV' && /NODE_ENV=production/.test(i.args))).toBe(
      true,
    );
  });

  it('the runtime stage runs as a non-root numeric user, set after the last RUN', () => {
    const users = runtime.instructions.filter((i) => i.keyword === 'USER');
    expect(users).toHaveLength(1);
    const [uid] = users[0]!.args.split(':');
    expect(Number(uid)).toBeGreaterThan(0);
    const lastRun = runtime.instructions.map((i) => i.keyword).lastIndexOf('RUN');
    expect(runtime.instructions.indexOf(users[0]!)).toBeGreaterThan(lastRun);
  });

  it('starts the bundle with telemetry loaded first, in exec form', () => {
    const cmd = runtime.instructions.filter((i) => i.keyword === 'CMD');
    expect(cmd).toHaveLength(1);
    expect(JSON.parse(cmd[0]!.args)).toEqual([
      'node',
      '--enable-source-maps',
      '--require',
      './register-telemetry.js',
      'start.js',
    ]);
  });

  // Every process the chart deploys whose package has landed.
  it.each(
    chartProcesses()
      .filter(landed)
      .map((p) => p.package),
  )('PACKAGE=%s names a process whose bundle has start.js and register-telemetry.js', (pkg) => {
    expect(fs.existsSync(path.join(repoRoot, pkg, 'src', 'start.ts'))).toBe(true);
    // The bundler emits register-telemetry.js when the package reaches @ordering/telemetry.
    const packages = workspacePackages();
    const seen = new Set<string>();
    const visit = (name: string) => {
      if (seen.has(name)) return;
      seen.add(name);
      for (const dep of Object.keys(packages.get(name)?.manifest.dependencies ?? {})) {
        if (dep.startsWith('@ordering/')) visit(dep);
      }
    };
    visit(JSON.parse(read(`${pkg}/package.json`)).name);
    expect(seen.has('@ordering/telemetry')).toBe(true);
  });
});

describe('the .dockerignore matcher of this test', () => {
  it('follows Docker semantics for the pattern kinds used', () => {
    expect(ignored(['**/dist'], 'services/auth/dist/start.js')).toBe(true);
    expect(ignored(['**/dist'], 'dist')).toBe(true);
    expect(ignored(['**/test'], 'libs/testing/src/index.ts')).toBe(false);
    expect(ignored(['.git'], '.github/x')).toBe(false);
    expect(ignored(['*.md', '!README.md'], 'README.md')).toBe(false);
  });
});
