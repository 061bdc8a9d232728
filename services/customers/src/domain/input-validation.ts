// Inputs (request bodies, records of an import file) are checked against zod schemas by the
// shared parser of @ordering/http: absent field 422 missing_required_field, unknown field 422
// unknown_field, malformed one 422 invalid_value, unsafe text refused, each naming `param`.
export { parseBody as parseInput } from '@ordering/http';
