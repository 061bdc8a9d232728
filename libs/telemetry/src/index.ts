// Not exported here: ./register (a side effect: starts telemetry when required).
export * from './start-telemetry';
export * from './sampler';
export * from './attributes';
export * from './spans';
export * from './trace-response';
export * from './http-server-telemetry';
export * from './db-tracing';
export * from './kafka-trace-context';
export * from './platform-metrics';
export * from './webhook-delivery';
export * from './in-memory-tracing';
export * from './test-metrics';
