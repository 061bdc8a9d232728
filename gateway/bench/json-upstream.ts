// The service behind the gateway in the benchmark: Express 5 answering a small order as JSON,
// as a real service's GET /v1/orders/{id} would. Run as its own process on PORT.
import express from 'express';

const order = {
  id: 'ord_123',
  object: 'order',
  cust_id: 'ACME',
  status: 'approved',
  total: { amount: 12500, currency: 'USD' },
  items: [{ id: 'oi_1', item_code: 'SKU-1', quantity: 5, unit_price: { amount: 2500, currency: 'USD' } }],
};

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/v1/orders/:id', (_req, res) => {
  res.json(order);
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
