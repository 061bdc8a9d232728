// Zipkin, the trace viewer of the local platform: the server's executable jar from Maven Central
// (cached like Kafka's jars), run on the machine's Java 17 with in-memory storage, started in the
// background and waited for on its /health. The services export their spans to it locally
// (OTEL_TRACES_EXPORTER=zipkin); in a cluster they export OTLP to a collector instead.
import fs from 'node:fs';
import path from 'node:path';
import {
  assertTools,
  cacheDir,
  isAlive,
  logTail,
  readPid,
  runMaven,
  spawnDetached,
  stopByPidFile,
} from './background-process';

export const ZIPKIN_VERSION = '3.5.1';

export interface ZipkinOptions {
  port: number;
  /** Where its pid file and log live (outside git). */
  dataDir: string;
  log?: (message: string) => void;
}

export interface RunningZipkin {
  /** The UI and API base, e.g. http://127.0.0.1:9411 */
  url: string;
  /** Where services send spans (Zipkin v2 JSON). */
  spansEndpoint: string;
  /** True when this call started it. */
  started: boolean;
}

/** Fetches the server jar once; later calls return the cached file at once. */
export function ensureZipkinJar(log: (m: string) => void = () => {}): string {
  const dir = cacheDir(`zipkin-${ZIPKIN_VERSION}`);
  const jar = path.join(dir, `zipkin-server-${ZIPKIN_VERSION}-exec.jar`);
  if (fs.existsSync(jar)) return jar;
  assertTools(['java', 'mvn'], 'Zipkin');
  log(`fetching Zipkin ${ZIPKIN_VERSION} from Maven Central into ${dir}`);
  fs.mkdirSync(dir, { recursive: true });
  const partial = path.join(dir, 'partial');
  fs.rmSync(partial, { recursive: true, force: true });
  runMaven(
    [
      'org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy',
      `-Dartifact=io.zipkin:zipkin-server:${ZIPKIN_VERSION}:jar:exec`,
      `-DoutputDirectory=${partial}`,
    ],
    'fetching Zipkin',
  );
  // Renamed into place only once complete: an interrupted download is fetched again.
  fs.renameSync(path.join(partial, path.basename(jar)), jar);
  fs.rmSync(partial, { recursive: true, force: true });
  return jar;
}

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
    return res.ok && ((await res.json()) as { status?: string }).status === 'UP';
  } catch {
    return false;
  }
}

function running(url: string, started: boolean): RunningZipkin {
  return { url, spansEndpoint: `${url}/api/v2/spans`, started };
}

const pidFile = (dataDir: string) => path.join(dataDir, 'zipkin.pid');

/**
 * Starts Zipkin in the background (or finds the one already answering on the port) without waiting
 * for it; `waitForZipkin` waits. It takes about 25 s to start, so callers start it first and wait
 * last.
 */
export async function startZipkin(options: ZipkinOptions): Promise<RunningZipkin> {
  const log = options.log ?? (() => {});
  const url = `http://127.0.0.1:${options.port}`;
  fs.mkdirSync(options.dataDir, { recursive: true });
  if (readPid(pidFile(options.dataDir)) || (await healthy(url))) {
    log(`Zipkin already running on ${url}`);
    return running(url, false);
  }
  const jar = ensureZipkinJar(log);
  const logFile = path.join(options.dataDir, 'zipkin.log');
  const pid = spawnDetached(
    'java',
    [
      '-Xms64m',
      '-Xmx256m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      '-Djava.awt.headless=true',
      '-jar',
      jar,
      `--server.port=${options.port}`,
    ],
    {
      logFile,
      pidFile: pidFile(options.dataDir),
      cwd: options.dataDir,
      // The newest 50,000 spans (a few thousand orders' traces): 200,000 spans of the services' size
      // did not fit the 256 MB heap (Zipkin answered 500 past about 100,000 in a long benchmark).
      env: { ...process.env, STORAGE_TYPE: 'mem', MEM_MAX_SPANS: '50000', SELF_TRACING_ENABLED: 'false' },
    },
  );
  log(`starting Zipkin ${ZIPKIN_VERSION} on ${url} (pid ${pid}, log ${logFile})`);
  return running(url, true);
}

/** Waits until Zipkin's /health says UP (it takes about 25 s from a cold JVM). */
export async function waitForZipkin(
  zipkin: RunningZipkin,
  dataDir: string,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const logFile = path.join(dataDir, 'zipkin.log');
  while (!(await healthy(zipkin.url))) {
    const pid = readPid(pidFile(dataDir));
    if (zipkin.started && (pid === undefined || !isAlive(pid))) {
      throw new Error(`Zipkin exited while starting; last lines of ${logFile}:\n${logTail(logFile)}`);
    }
    if (Date.now() > deadline)
      throw new Error(`Zipkin did not answer on ${zipkin.url} in time; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export function stopZipkin(dataDir: string): Promise<void> {
  return stopByPidFile(pidFile(dataDir), 10_000);
}
