export * from './kafka-broker';
export * from './local-servers';
