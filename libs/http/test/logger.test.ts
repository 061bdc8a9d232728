import {
  ROOT_CONTEXT,
  type Context,
  type ContextManager,
  context,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import { captureLogs } from './log-capture';

/** A minimal synchronous context manager: enough for `context.with` to make a span active. */
class StackContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;
  active(): Context {
    return this.current;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const previous = this.current;
    this.current = ctx;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = previous;
    }
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }
}

beforeAll(() => {
  context.setGlobalContextManager(new StackContextManager());
});
afterAll(() => {
  context.disable();
});

function inSpan(traceId: string, spanId: string, fn: () => void): void {
  const span = trace.wrapSpanContext({ traceId, spanId, traceFlags: TraceFlags.SAMPLED });
  context.with(trace.setSpan(context.active(), span), fn);
}

describe('createLogger', () => {
  it('writes JSON lines naming the service, with a text level and an ISO time', () => {
    const logs = captureLogs('orders');
    logs.logger.info({ order_id: 'ord_1' }, 'order placed');
    const [line] = logs.lines();
    expect(line).toMatchObject({ service: 'orders', level: 'info', msg: 'order placed', order_id: 'ord_1' });
    expect(new Date(line?.time as string).toISOString()).toBe(line?.time);
    expect(line).not.toHaveProperty('trace_id');
  });

  it('adds trace_id and span_id of the active span', () => {
    const logs = captureLogs('orders');
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const spanId = 'b7ad6b7169203331';
    inSpan(traceId, spanId, () => logs.logger.info('inside'));
    logs.logger.info('outside');
    const [inside, outside] = logs.lines();
    expect(inside).toMatchObject({ msg: 'inside', trace_id: traceId, span_id: spanId });
    expect(outside).not.toHaveProperty('trace_id');
  });

  it('ignores an invalid span context', () => {
    const logs = captureLogs('orders');
    inSpan('00000000000000000000000000000000', '0000000000000000', () => logs.logger.info('x'));
    expect(logs.lines()[0]).not.toHaveProperty('trace_id');
  });

  it('never writes authorization headers, identity headers or secrets', () => {
    const logs = captureLogs('gateway');
    logs.logger.info(
      {
        req: {
          headers: {
            authorization: 'Bearer eyJ.secret.jwt',
            'x-ordering-identity': 'payload.mac',
            host: 'api',
          },
        },
        client_secret: 'cs_live_123',
        body: { password: 'hunter2', signing_secret: 'whsec_abc', refresh_token: 'rt_1' },
      },
      'request',
    );
    const text = logs.text();
    for (const secret of ['eyJ.secret.jwt', 'payload.mac', 'cs_live_123', 'hunter2', 'whsec_abc', 'rt_1']) {
      expect(text).not.toContain(secret);
    }
    expect(logs.lines()[0]).toMatchObject({ req: { headers: { authorization: '[redacted]', host: 'api' } } });
  });

  it('respects the level', () => {
    const logs = captureLogs('orders', 'warn');
    logs.logger.info('hidden');
    logs.logger.warn('shown');
    expect(logs.lines().map((l) => l.msg)).toEqual(['shown']);
  });
});
