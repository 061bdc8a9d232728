// What an import file reader reports: every bad line, by number (and field when a service's
// validation names one), all at once.

export type ImportFormat = 'json' | 'csv';

/** One record of the file and the line it starts on. */
export interface ImportRecord {
  line: number;
  value: unknown;
}

export interface ImportProblem {
  line: number;
  param?: string;
  message: string;
}

/** The file cannot be read as records; `problems` says where. */
export class ImportParseError extends Error {
  constructor(readonly problems: ImportProblem[]) {
    super(problems.map((p) => `line ${p.line}: ${p.message}`).join('\n'));
  }
}
