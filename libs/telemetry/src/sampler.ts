// Head sampling from OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG. The default is parent-based
// with a ratio (1.0 unless set): the gateway decides for a request (a new trace at the public edge),
// and every process downstream follows the decision carried in `traceparent`, so a sampled request
// is whole and an unsampled one costs next to nothing anywhere.
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace';

function ratioOf(arg: string | undefined): number {
  if (arg === undefined || arg.trim() === '') return 1;
  const ratio = Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a ratio between 0 and 1, got '${arg}'`);
  }
  return ratio;
}

export function samplerFromEnv(env: NodeJS.ProcessEnv): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? 'parentbased_traceidratio').trim().toLowerCase();
  const ratio = () => ratioOf(env.OTEL_TRACES_SAMPLER_ARG);
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      throw new Error(
        `OTEL_TRACES_SAMPLER '${name}' is not supported (parentbased_traceidratio, parentbased_always_on, ` +
          'parentbased_always_off, traceidratio, always_on, always_off)',
      );
  }
}
