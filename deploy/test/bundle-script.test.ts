// deploy/build/bundle.mjs rebuilt over an existing dist/, as `./dev up` does while processes may be
// starting from that dist/ (the test run starts services while its `./dev up` test rebuilds them):
// a file is always either the old one or the new one, unchanged files are not rewritten, files the
// new build no longer has go, and no staging folder is left behind.
import fs from 'node:fs';
import path from 'node:path';
import { bundleCopy, runBundler } from './support/bundle-package';

jest.setTimeout(120_000);

const copies: string[] = [];
afterAll(() => {
  for (const copy of copies) fs.rmSync(path.dirname(copy), { recursive: true, force: true });
});

async function bundled(packageDir: string): Promise<string> {
  const copy = await bundleCopy(packageDir);
  copies.push(copy);
  return copy;
}

const stagingFolders = (dir: string) => fs.readdirSync(dir).filter((e) => e.startsWith('.dist-staging-'));

it('a rebuild leaves unchanged files in place and removes what the new build no longer has', async () => {
  const copy = await bundled('gateway');
  const start = path.join(copy, 'dist', 'start.js');
  const before = fs.statSync(start);
  fs.writeFileSync(path.join(copy, 'dist', 'left-over.js'), 'old');
  fs.mkdirSync(path.join(copy, 'dist', 'old-folder'));

  const summary = await runBundler(copy);

  expect(summary).toContain('dist/start.js');
  expect(fs.statSync(start).ino).toBe(before.ino);
  expect(fs.statSync(start).mtimeMs).toBe(before.mtimeMs);
  expect(fs.readdirSync(path.join(copy, 'dist'))).toEqual(
    expect.arrayContaining(['package.json', 'register-telemetry.js', 'start.js', 'start.js.map']),
  );
  expect(fs.existsSync(path.join(copy, 'dist', 'left-over.js'))).toBe(false);
  expect(fs.existsSync(path.join(copy, 'dist', 'old-folder'))).toBe(false);
  expect(stagingFolders(copy)).toEqual([]);
});

it('while a changed bundle is written, dist/start.js is always there, old or new, never partial', async () => {
  const copy = await bundled('gateway');
  const start = path.join(copy, 'dist', 'start.js');
  const fresh = fs.readFileSync(start, 'utf8');
  const old = '// an older build\n';
  fs.writeFileSync(start, old);

  const seen = new Set<string>();
  let reads = 0;
  let done = false;
  const rebuild = runBundler(copy).finally(() => {
    done = true;
  });
  while (!done) {
    const text = fs.existsSync(start) ? fs.readFileSync(start, 'utf8') : 'missing';
    seen.add(text === old ? 'old' : text === fresh ? 'new' : text === 'missing' ? 'missing' : 'partial');
    reads++;
    await new Promise((resolve) => setImmediate(resolve));
  }
  await rebuild;

  expect(reads).toBeGreaterThan(10);
  expect([...seen].filter((s) => s !== 'old' && s !== 'new')).toEqual([]);
  expect(fs.readFileSync(start, 'utf8')).toBe(fresh);
  expect(stagingFolders(copy)).toEqual([]);
});

it('a build that fails leaves dist/ as it was and no staging folder', async () => {
  const copy = await bundled('gateway');
  const dist = fs.readdirSync(path.join(copy, 'dist')).sort();
  const start = fs.readFileSync(path.join(copy, 'dist', 'start.js'), 'utf8');
  // The copy's src is a link to the checkout's: replace it with a folder whose entry point does not compile.
  fs.rmSync(path.join(copy, 'src'));
  fs.mkdirSync(path.join(copy, 'src'));
  fs.writeFileSync(path.join(copy, 'src', 'start.ts'), 'export const = ;\n');

  await expect(runBundler(copy)).rejects.toThrow();

  expect(fs.readdirSync(path.join(copy, 'dist')).sort()).toEqual(dist);
  expect(fs.readFileSync(path.join(copy, 'dist', 'start.js'), 'utf8')).toBe(start);
  expect(stagingFolders(copy)).toEqual([]);
});
