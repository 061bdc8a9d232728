// TLS and SASL towards the brokers, read once for every process from the environment (the chart
// sets them from kafka.tls and kafka.sasl; Secrets hold the credentials):
//   KAFKA_SSL=true               TLS to the brokers (system CAs unless KAFKA_SSL_CA_FILE)
//   KAFKA_SSL_CA_FILE=<path>     PEM CA certificate(s) of the brokers (implies KAFKA_SSL)
//   KAFKA_SASL_MECHANISM         plain | scram-sha-256 | scram-sha-512 (unset: no SASL)
//   KAFKA_SASL_USERNAME / KAFKA_SASL_PASSWORD
// Unset, the client speaks plaintext without SASL, as the local broker expects.
import fs from 'node:fs';
import type { SASLOptions } from 'kafkajs';

export interface KafkaSecurity {
  ssl?: true | { ca: string[] };
  sasl?: SASLOptions;
}

const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
type SaslMechanism = (typeof SASL_MECHANISMS)[number];

function truthy(value: string | undefined, name: string): boolean {
  if (value === undefined || value === '') return false;
  const v = value.toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  throw new Error(`${name} must be true or false, got '${value}'`);
}

/** The kafkajs `ssl` and `sasl` options the environment asks for; throws naming a bad variable. */
export function kafkaSecurityFromEnv(env: NodeJS.ProcessEnv = process.env): KafkaSecurity {
  const security: KafkaSecurity = {};
  const caFile = env.KAFKA_SSL_CA_FILE;
  if (caFile) {
    let ca: string;
    try {
      ca = fs.readFileSync(caFile, 'utf8');
    } catch (err) {
      throw new Error(`KAFKA_SSL_CA_FILE: cannot read ${caFile}`, { cause: err });
    }
    security.ssl = { ca: [ca] };
  } else if (truthy(env.KAFKA_SSL, 'KAFKA_SSL')) {
    security.ssl = true;
  }
  const mechanism = env.KAFKA_SASL_MECHANISM?.toLowerCase();
  if (mechanism) {
    if (!SASL_MECHANISMS.includes(mechanism as SaslMechanism)) {
      throw new Error(
        `KAFKA_SASL_MECHANISM must be one of ${SASL_MECHANISMS.join(', ')}, got '${mechanism}'`,
      );
    }
    const username = env.KAFKA_SASL_USERNAME;
    const password = env.KAFKA_SASL_PASSWORD;
    if (!username || !password) {
      throw new Error('KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD are required with KAFKA_SASL_MECHANISM');
    }
    security.sasl = { mechanism: mechanism as SaslMechanism, username, password } as SASLOptions;
  }
  return security;
}
