import { ConfigError, env, loadConfig, z } from '../src';

const schema = z.object({
  PORT: env.port(8080),
  DATABASE_URL: env.url(),
  KAFKA_BROKERS: env.list(),
  OUTBOX_ENABLED: env.bool(true),
});

describe('loadConfig', () => {
  it('parses and coerces a valid environment, applying defaults', () => {
    const cfg = loadConfig(schema, { DATABASE_URL: 'postgres://127.0.0.1/x', KAFKA_BROKERS: 'a:1, b:2' });
    expect(cfg).toEqual({
      PORT: 8080,
      DATABASE_URL: 'postgres://127.0.0.1/x',
      KAFKA_BROKERS: ['a:1', 'b:2'],
      OUTBOX_ENABLED: true,
    });
  });

  it('refuses a missing variable, naming it', () => {
    expect(() => loadConfig(schema, { KAFKA_BROKERS: 'a:1' })).toThrow(/DATABASE_URL is missing/);
  });

  it('refuses a malformed value, naming the variable, and reports every problem at once', () => {
    let caught: unknown;
    try {
      loadConfig(schema, { PORT: 'eighty', DATABASE_URL: 'not a url', KAFKA_BROKERS: '' });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join('\n');
    expect(problems).toMatch(/PORT is malformed/);
    expect(problems).toMatch(/DATABASE_URL is malformed/);
    expect(problems).toMatch(/KAFKA_BROKERS/);
  });

  it('refuses a boolean that is not one', () => {
    expect(() =>
      loadConfig(schema, { DATABASE_URL: 'postgres://h/x', KAFKA_BROKERS: 'a:1', OUTBOX_ENABLED: 'maybe' }),
    ).toThrow(/OUTBOX_ENABLED is malformed/);
  });
});
