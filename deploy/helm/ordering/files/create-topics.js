// Creates the platform's Kafka topics that do not exist yet, and waits for their partition leaders.
// Idempotent: run by the kafka-topics Job on every deploy. It runs in a service image (kafkajs is
// in /app/node_modules) and reads:
//   KAFKA_BROKERS                   comma-separated brokers
//   KAFKA_TOPICS                    comma-separated topic names (libs/contracts ALL_TOPICS)
//   KAFKA_TOPIC_PARTITIONS          partitions of a new topic
//   KAFKA_TOPIC_REPLICATION_FACTOR  replicas of a new topic
//   KAFKA_SSL, KAFKA_SSL_CA_FILE, KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD
//                                   TLS and SASL, read as libs/messaging kafka-security.ts reads them
//   APP_DIR                         where the image's node_modules are (default /app)
/* eslint-disable @typescript-eslint/no-require-imports, no-console -- a CommonJS script that node runs in the image, reporting on stdout */
'use strict';
const path = require('node:path');
const { createRequire } = require('node:module');

const fs = require('node:fs');
const { Kafka, logLevel } = createRequire(path.join(process.env.APP_DIR || '/app', 'start.js'))('kafkajs');

const list = (value) =>
  (value || '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function positive(name) {
  const value = Number(process.env[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

/** kafkajs ssl and sasl options (the services' own reading is libs/messaging kafka-security.ts). */
function security() {
  const options = {};
  if (process.env.KAFKA_SSL_CA_FILE)
    options.ssl = { ca: [fs.readFileSync(process.env.KAFKA_SSL_CA_FILE, 'utf8')] };
  else if (/^(true|1|yes)$/i.test(process.env.KAFKA_SSL || '')) options.ssl = true;
  const mechanism = (process.env.KAFKA_SASL_MECHANISM || '').toLowerCase();
  if (mechanism) {
    const { KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: password } = process.env;
    if (!username || !password) throw new Error('KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD are required');
    options.sasl = { mechanism, username, password };
  }
  return options;
}

async function main() {
  const brokers = list(process.env.KAFKA_BROKERS);
  const topics = list(process.env.KAFKA_TOPICS);
  if (brokers.length === 0 || topics.length === 0)
    throw new Error('KAFKA_BROKERS and KAFKA_TOPICS are required');
  const numPartitions = positive('KAFKA_TOPIC_PARTITIONS');
  const replicationFactor = positive('KAFKA_TOPIC_REPLICATION_FACTOR');

  const admin = new Kafka({
    clientId: 'ordering-topics',
    brokers,
    logLevel: logLevel.WARN,
    ...security(),
  }).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((topic) => ({ topic, numPartitions, replicationFactor })),
      });
    }
    console.log(
      JSON.stringify({
        msg: 'kafka topics ready',
        created: missing,
        existing: topics.length - missing.length,
      }),
    );
  } finally {
    await admin.disconnect();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
