// Not exported here: ./register (a side effect: starts telemetry when required).
export * from './start-telemetry';
export * from './kafka-trace-context';
export * from './in-memory-tracing';
