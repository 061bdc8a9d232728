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

describe('a stdout reader that falls behind', () => {
  it('drops the lines past 16 MiB unwritten, counts them in ordering.log.lines.dropped and says so on stderr', async () => {
    const count = 30_000; // about 30 MiB of lines, logged in one synchronous burst
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, 'fixtures/log-flood.ts'), String(count)],
      { cwd: path.resolve(__dirname, '../../..'), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(0);

    const written = out.split('\n').filter(Boolean);
    const dropped = Number(/^DROPPED (\d+)$/m.exec(err)?.[1]);
    // The first 16 MiB were kept and written; every line after them was dropped and counted.
    expect(written.length).toBeGreaterThan(15_000);
    expect(dropped).toBeGreaterThan(0);
    expect(written.length + dropped).toBe(count);
    // The lines written are the first ones, in order and whole.
    const numbers = written.map((l) => (JSON.parse(l) as { n: number }).n);
    expect(numbers).toEqual(Array.from({ length: written.length }, (_, i) => i + 1));

    // One note on stderr (at most one per 10 s), in the log's JSON shape.
    const notes = err
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; dropped_lines: number });
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ level: 40, dropped_lines: expect.any(Number) });
    expect(notes[0]?.msg).toMatch(
      /log lines dropped \(\d+ since the last note\): stdout's reader is more than 16 MiB behind/,
    );
  }, 60_000);
});
