import { spawn } from 'node:child_process';
import path from 'node:path';

/** Runs fixtures/log-then-end.ts; resolves with its exit code and the JSON lines of its stdout. */
function runFixture(
  how: string,
  count: number,
): Promise<{ code: number | null; lines: Array<Record<string, unknown>> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'fixtures/log-then-end.ts'), how, String(count)],
    { cwd: path.resolve(__dirname, '../../..'), stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  return new Promise((resolve) =>
    child.once('close', (code) =>
      resolve({
        code,
        lines: out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
      }),
    ),
  );
}

describe('the default stdout destination (batched, asynchronous)', () => {
  it.each([
    ['return', 'the process ends by itself', 0],
    ['exit', 'the process calls process.exit', 0],
    ['throw', 'an uncaught error ends the process', 1],
  ])(
    'loses no line when %s: %s',
    async (how, _when, expectedCode) => {
      for (const count of [0, 3_000]) {
        const { code, lines } = await runFixture(how, count);
        expect(code).toBe(expectedCode);
        expect(lines).toHaveLength(count + 1);
        expect(lines.at(-1)).toMatchObject({ service: 'log-then-end', msg: 'last line', how });
        expect(lines.slice(0, -1).map((l) => l.n)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      }
    },
    60_000,
  );

  it('writes a lone line of a quiet process within a moment, not only at exit', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, 'fixtures/log-then-end.ts'), 'stay', '0'],
      { cwd: path.resolve(__dirname, '../../..'), stdio: ['ignore', 'pipe', 'ignore'] },
    );
    try {
      const line = await new Promise<string>((resolve) =>
        child.stdout.setEncoding('utf8').once('data', (chunk: string) => resolve(chunk)),
      );
      expect(JSON.parse(line)).toMatchObject({ msg: 'last line', how: 'stay' });
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});
