export * from './config';
export * from './service';
export { migrations } from '../migrations';
export { TRANSITIONS, stateDiagram } from './domain/order-transitions';
export { TAX_RATES_BP, SHIPPING_BANDS, orderTotals } from './domain/money';
