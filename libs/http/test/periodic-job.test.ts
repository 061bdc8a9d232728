import { periodicJob } from '../src';
import { captureLogs } from './log-capture';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('runs at start and every interval, logs only what it removed, and survives a failing run', async () => {
  const { logger, lines } = captureLogs();
  const results: Array<Record<string, number> | Error> = [
    { keys: 0 },
    new Error('database gone'),
    { keys: 3 },
  ];
  let runs = 0;
  const job = periodicJob(
    'maintenance',
    async () => {
      const next = results[Math.min(runs++, results.length - 1)]!;
      if (next instanceof Error) throw next;
      return next;
    },
    logger,
    30,
  );
  await job.start();
  // Three runs take about 60 ms; a loaded machine may take longer, so wait for them (up to 5 s).
  for (const deadline = Date.now() + 5_000; runs < 3 && Date.now() < deadline;) await tick(10);
  await job.stop();
  expect(runs).toBeGreaterThanOrEqual(3);
  const messages = lines().map((l) => l.msg);
  expect(messages).toContain('maintenance failed; retrying at the next interval');
  expect(lines().find((l) => l.msg === 'maintenance: purged')).toMatchObject({ keys: 3 });
  // Nothing removed: nothing logged for that run.
  expect(
    lines()
      .filter((l) => l.msg === 'maintenance: purged')
      .every((l) => (l.keys as number) > 0),
  ).toBe(true);
});

it('stops without starting another run, after the one in flight has finished', async () => {
  const { logger } = captureLogs();
  let finished = 0;
  let started = 0;
  const job = periodicJob(
    'slow',
    async () => {
      started++;
      await tick(50);
      finished++;
      return {};
    },
    logger,
    10_000,
  );
  await job.start();
  await job.stop();
  expect({ started, finished }).toEqual({ started: 1, finished: 1 });
});
