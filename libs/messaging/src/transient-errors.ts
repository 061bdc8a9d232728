// The classification lives in @ordering/errors, beside the HTTP errors it also decides (503).
export { isTransientInfrastructureError } from '@ordering/errors';
