export * from './idempotency-store';
export * from './respond-idempotently';
