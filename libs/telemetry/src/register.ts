// `node --require @ordering/telemetry/src/register` (or the bundled register.js next to a
// service's bundle): starts OpenTelemetry before anything else is loaded, named by
// OTEL_SERVICE_NAME (else SERVICE_NAME), and flushes it on SIGTERM/SIGINT after the service's own
// shutdown handlers had their turn.
import { startTelemetry } from './start-telemetry';

const service = process.env.OTEL_SERVICE_NAME ?? process.env.SERVICE_NAME ?? 'unknown_service:node';
const telemetry = startTelemetry({ service });

process.once('beforeExit', () => {
  void telemetry.shutdown();
});
