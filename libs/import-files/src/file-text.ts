// An import file's bytes as text: UTF-8 or refused. Decoding other bytes (a CSV saved as Windows-1252
// or Latin-1, as spreadsheets often do) would silently turn each accented letter into U+FFFD and
// import the damaged names, as the API refuses a body that is not UTF-8 for the same reason.
import { isUtf8 } from 'node:buffer';
import { type ImportProblem, ImportParseError } from './import-problems';

/** How many bad lines are named; the file is refused either way. */
const MAX_LINES_NAMED = 20;

/**
 * The file's text; `ImportParseError` naming each line (up to 20) that is not valid UTF-8. A line
 * is checked on its own: a newline byte never occurs inside a UTF-8 sequence.
 */
export function decodeImportFile(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(buffer)) return buffer.toString('utf8');
  const problems: ImportProblem[] = [];
  let start = 0;
  for (let line = 1; start <= buffer.length && problems.length < MAX_LINES_NAMED; line++) {
    const end = buffer.indexOf(10, start);
    const stop = end === -1 ? buffer.length : end;
    if (!isUtf8(buffer.subarray(start, stop))) {
      problems.push({ line, message: 'not UTF-8 text (save the file as UTF-8)' });
    }
    start = stop + 1;
  }
  throw new ImportParseError(problems);
}
