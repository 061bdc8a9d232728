// A single-node Apache Kafka broker (KRaft) that the project provisions itself: jars from Maven
// Central into a cache outside git, storage formatted once, the broker started in the background
// and waited for by asking it, topics created explicitly, and stopped cleanly.
// Idempotent: a broker already running for the same data directory is reused.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
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

export const KAFKA_VERSION = '3.9.1';

export interface KafkaBrokerOptions {
  /** PLAINTEXT listener on 127.0.0.1. */
  port: number;
  /** KRaft controller listener on 127.0.0.1. */
  controllerPort: number;
  /** Where this broker keeps its logs, pid file and configuration (outside git). */
  dataDir: string;
  /** Topics to create (idempotent). */
  topics?: { name: string; partitions?: number }[];
  /** Start from empty storage when this call starts the broker (test brokers: no history to replay). */
  fresh?: boolean;
  log?: (message: string) => void;
}

export interface RunningKafkaBroker {
  brokers: string[];
  pid: number;
  /** True when this call started the broker; false when one was already running (pid 0: not ours). */
  started: boolean;
}

const repoRoot = path.resolve(__dirname, '..', '..');
const pomFile = path.join(__dirname, 'kafka', 'pom.xml');

/** The jar cache: ${ORDERING_CACHE_DIR:-$XDG_CACHE_HOME/ordering-platform}/kafka-<version>/libs */
export function kafkaCacheDir(): string {
  return cacheDir(`kafka-${KAFKA_VERSION}`);
}

/** Fetches Kafka's jars from Maven Central once; later calls return the cached folder at once. */
export function ensureKafkaJars(log: (m: string) => void = () => {}): string {
  const cache = kafkaCacheDir();
  const libs = path.join(cache, 'libs');
  const marker = path.join(cache, '.complete');
  if (fs.existsSync(marker)) return libs;
  assertTools(['java', 'mvn'], 'Kafka');
  log(`fetching Apache Kafka ${KAFKA_VERSION} from Maven Central into ${libs}`);
  fs.rmSync(libs, { recursive: true, force: true });
  fs.mkdirSync(libs, { recursive: true });
  runMaven(
    [
      '-f',
      pomFile,
      'org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies',
      '-DincludeScope=runtime',
      `-DoutputDirectory=${libs}`,
    ],
    'fetching Kafka',
  );
  fs.writeFileSync(marker, new Date().toISOString());
  return libs;
}

function serverProperties(o: KafkaBrokerOptions): string {
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${o.controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${o.port},CONTROLLER://127.0.0.1:${o.controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${o.port}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    `log.dirs=${path.join(o.dataDir, 'data')}`,
    'num.partitions=3',
    'auto.create.topics.enable=false',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    'log.cleaner.dedupe.buffer.size=16777216',
    'log.retention.hours=24',
    '',
  ].join('\n');
}

const log4j = [
  'log4j.rootLogger=WARN, stdout',
  'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
  'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
  'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
  'log4j.logger.kafka.server.KafkaServer=INFO',
  'log4j.logger.kafka.server.KafkaRaftServer=INFO',
  'log4j.logger.kafka.server.BrokerServer=INFO',
  '',
].join('\n');

function pidFile(dataDir: string): string {
  return path.join(dataDir, 'broker.pid');
}

/** Asks the broker for its cluster metadata: its cluster id, or undefined when it does not answer. */
export async function kafkaClusterId(brokers: string[], timeoutMs = 3000): Promise<string | undefined> {
  const kafka = new Kafka({
    clientId: 'ordering-probe',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: Math.min(timeoutMs, 1000),
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  try {
    return await Promise.race([
      (async () => {
        await admin.connect();
        return (await admin.describeCluster()).clusterId;
      })(),
      new Promise<undefined>((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs)),
    ]);
  } catch {
    return undefined;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/** Resolves true once a broker answers at `brokers`. */
export async function kafkaAnswers(brokers: string[], timeoutMs = 3000): Promise<boolean> {
  return (await kafkaClusterId(brokers, timeoutMs)) !== undefined;
}

/** Creates the topics that do not exist yet and waits for their partition leaders. */
export async function createTopics(
  brokers: string[],
  topics: { name: string; partitions?: number }[],
): Promise<void> {
  if (topics.length === 0) return;
  const kafka = new Kafka({ clientId: 'ordering-topics', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.name));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((t) => ({
          topic: t.name,
          numPartitions: t.partitions ?? 3,
          replicationFactor: 1,
        })),
      });
    }
  } finally {
    await admin.disconnect();
  }
}

/** Starts the broker (or finds the one already running for dataDir) and waits until it answers. */
export async function startKafkaBroker(options: KafkaBrokerOptions): Promise<RunningKafkaBroker> {
  const log = options.log ?? (() => {});
  const brokers = [`127.0.0.1:${options.port}`];
  fs.mkdirSync(options.dataDir, { recursive: true });

  const running = readPid(pidFile(options.dataDir));
  const knownClusterId = fs.existsSync(path.join(options.dataDir, 'cluster.id'))
    ? fs.readFileSync(path.join(options.dataDir, 'cluster.id'), 'utf8').trim()
    : undefined;
  if (running && knownClusterId !== undefined && (await kafkaClusterId(brokers)) === knownClusterId) {
    log(`Kafka already running on ${brokers[0]} (pid ${running})`);
    await createTopics(brokers, options.topics ?? []);
    return { brokers, pid: running, started: false };
  }
  if (await kafkaAnswers(brokers, 1500)) {
    // A broker this data directory did not start (another checkout's, or one left behind by a run
    // that was killed): use it as it is, create our topics, and leave stopping it to its owner.
    log(`Kafka already answers on ${brokers[0]} (not started from ${options.dataDir}); using it`);
    await createTopics(brokers, options.topics ?? []);
    return { brokers, pid: 0, started: false };
  }

  const libs = ensureKafkaJars(log);
  const classpath = `${libs}/*`;
  const props = path.join(options.dataDir, 'server.properties');
  const log4jFile = path.join(options.dataDir, 'log4j.properties');
  fs.writeFileSync(props, serverProperties(options));
  fs.writeFileSync(log4jFile, log4j);

  if (options.fresh) {
    fs.rmSync(path.join(options.dataDir, 'data'), { recursive: true, force: true });
    fs.rmSync(path.join(options.dataDir, 'cluster.id'), { force: true });
  }
  const clusterIdFile = path.join(options.dataDir, 'cluster.id');
  if (!fs.existsSync(clusterIdFile)) {
    // KRaft cluster ids are 16 random bytes, base64url without padding (22 characters); never one
    // starting with '-', which kafka-storage would read as an option (as Kafka's own Uuid avoids).
    let id = randomBytes(16).toString('base64url');
    while (id.startsWith('-')) id = randomBytes(16).toString('base64url');
    fs.writeFileSync(clusterIdFile, id);
  }
  const clusterId = fs.readFileSync(clusterIdFile, 'utf8').trim();
  const jvm = [
    '-Xms256m',
    '-Xmx512m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-Djava.awt.headless=true',
  ];
  const log4jOpt = `-Dlog4j.configuration=file:${log4jFile}`;

  const format = spawnSync(
    'java',
    [
      ...jvm,
      log4jOpt,
      '-cp',
      classpath,
      'kafka.tools.StorageTool',
      'format',
      '-t',
      clusterId,
      '-c',
      props,
      '--ignore-formatted',
    ],
    { encoding: 'utf8' },
  );
  if (format.status !== 0) {
    throw new Error(`formatting Kafka storage failed:\n${format.stdout}\n${format.stderr}`);
  }

  const logFile = path.join(options.dataDir, 'broker.log');
  const pid = spawnDetached('java', [...jvm, log4jOpt, '-cp', classpath, 'kafka.Kafka', props], {
    logFile,
    pidFile: pidFile(options.dataDir),
    cwd: repoRoot,
  });
  log(`starting Kafka ${KAFKA_VERSION} on ${brokers[0]} (pid ${pid}, log ${logFile})`);

  const deadline = Date.now() + 90_000;
  const exitedWhileStarting = () =>
    new Error(`Kafka exited while starting; last lines of ${logFile}:\n${logTail(logFile)}`);
  // The broker that answers must be ours (our cluster id): another one on the port, say one starting
  // at the same moment, must not pass for ours while ours failed to bind.
  while ((await kafkaClusterId(brokers, 2000)) !== clusterId) {
    if (!isAlive(pid)) throw exitedWhileStarting();
    if (Date.now() > deadline) {
      await stopKafkaBroker(options.dataDir);
      throw new Error(`Kafka did not answer on ${brokers[0]} within 90 s; see ${logFile}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  await createTopics(brokers, options.topics ?? []);
  await waitForGroupCoordinator(brokers);
  return { brokers, pid, started: true };
}

/**
 * A broker just started answers metadata before it can coordinate consumer groups (it creates
 * `__consumer_offsets` on the first request for a coordinator): a consumer that joined in that
 * window failed ("Consumer group was not initialized"). Ask for a coordinator until one answers.
 */
async function waitForGroupCoordinator(brokers: string[], timeoutMs = 30_000): Promise<void> {
  const kafka = new Kafka({
    clientId: 'ordering-broker-probe',
    brokers,
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  await admin.connect();
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        await admin.describeGroups(['ordering-broker-probe']);
        return;
      } catch (err) {
        if (Date.now() > deadline)
          throw new Error(`Kafka on ${brokers[0]} coordinates no consumer group`, { cause: err });
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/** Stops the broker of dataDir with SIGTERM (controlled shutdown), SIGKILL after 30 s. */
export function stopKafkaBroker(dataDir: string): Promise<void> {
  return stopByPidFile(pidFile(dataDir));
}

/** Folder for local state: `.local/` of the checkout (git-ignored), or ORDERING_STATE_DIR. */
export function localStateDir(...parts: string[]): string {
  return path.join(process.env.ORDERING_STATE_DIR ?? path.join(repoRoot, '.local'), ...parts);
}
