// Open-loop load for benchmarks: requests arrive at random (exponential gaps, a Poisson process)
// at `rate` per second, each sent when it is due whether or not earlier ones were answered, and
// its latency counted from when it was due, so a stall counts for every request it held up.
// (autocannon's `overallRate` instead lets each connection send its share of a second back to
// back, so "half load" arrives as bursts at full concurrency and measures the bursts.)
import http from 'node:http';

export interface OpenLoopRequest {
  method: 'GET' | 'POST';
  /** Absolute URL. */
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface OpenLoopFigures {
  /** Answered with 2xx per second of the run. */
  rps: number;
  /** Latency percentiles (ms) of the 2xx answers, from when each request was due. */
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Runs `rate` requests per second for `seconds`; `next(n)` gives the n-th request. */
export async function openLoopLoad(
  next: (n: number) => OpenLoopRequest,
  options: { rate: number; seconds: number },
): Promise<OpenLoopFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  const end = start + options.seconds * 1000;
  for (let due = start, n = 0; ; n++) {
    due += (-Math.log(1 - Math.random()) * 1000) / options.rate;
    if (due >= end) break;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const request = next(n);
    const sentDue = due;
    inFlight.push(
      new Promise<void>((resolve) => {
        const req = http.request(
          request.url,
          { method: request.method, agent, headers: request.headers ?? {} },
          (res) => {
            res.resume();
            res.on('end', () => {
              const status = res.statusCode ?? 0;
              if (status >= 200 && status < 300) latencies.push(performance.now() - sentDue);
              else non2xx++;
              resolve();
            });
          },
        );
        req.on('error', () => {
          errors++;
          resolve();
        });
        req.end(request.body);
      }),
    );
  }
  await Promise.all(inFlight);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return { rps: latencies.length / options.seconds, p50: at(0.5), p99: at(0.99), errors, non2xx };
}
