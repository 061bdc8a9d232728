// The one zod instance of the contracts, extended with `.openapi()` so that every schema carries
// its OpenAPI component name and descriptions. Import `z` from here (or from the package) when a
// schema should appear in the OpenAPI document.
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export { z };
