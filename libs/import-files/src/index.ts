// Reading operators' import files into records that keep the line they start on; each service
// maps the records to its own fields and validates them.
export {
  type ImportFormat,
  type ImportProblem,
  type ImportRecord,
  ImportParseError,
} from './import-problems';
export { type CsvRow, type CsvTable, readCsvRows, readCsvTable } from './csv-rows';
export { readJsonRecords } from './json-records';
export { decodeImportFile } from './file-text';
