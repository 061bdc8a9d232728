// JSON import files: an array of records (pretty-printed or not) or JSON Lines (one record per
// non-empty line). An array is read in one pass that finds where each top-level element starts and
// ends (strings and nesting respected) and on which line it starts; each element is then parsed on
// its own, so every record knows its line without counting lines again per record, and a malformed
// element is reported on its own line.
import { type ImportProblem, type ImportRecord, ImportParseError } from './import-problems';

export function readJsonRecords(content: string): ImportRecord[] {
  const start = firstNonSpace(content, 0);
  return content.charCodeAt(start) === 91 /* [ */ ? readJsonArray(content, start) : readJsonLines(content);
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

function firstNonSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

const notValid = (line: number, why: string): ImportProblem => ({ line, message: `not valid JSON: ${why}` });

function readJsonArray(text: string, open: number): ImportRecord[] {
  const records: ImportRecord[] = [];
  const problems: ImportProblem[] = [];
  let line = 1;
  for (let i = 0; i < open; i++) if (text.charCodeAt(i) === 10) line++;
  let depth = 0; // nesting inside the current element
  let inString = false;
  let elementStart = -1; // offset of the current element's first character
  let elementLine = line;
  let sawComma = false;
  let closedAt = -1;
  const endElement = (end: number, atLine: number) => {
    if (elementStart === -1) {
      // `[,` `,,` or `,]`: a missing element (an empty array `[]` is fine).
      if (sawComma || text.charCodeAt(end) === 44) problems.push(notValid(atLine, 'an element is missing'));
      return;
    }
    const slice = text.slice(elementStart, end);
    try {
      records.push({ line: elementLine, value: JSON.parse(slice) });
    } catch (err) {
      problems.push(notValid(elementLine, (err as Error).message));
    }
    elementStart = -1;
  };
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (isSpace(c)) continue;
    if (depth === 0 && (c === 44 /* , */ || c === 93) /* ] */) {
      endElement(i, line);
      if (c === 93) {
        closedAt = i;
        break;
      }
      sawComma = true;
      continue;
    }
    if (elementStart === -1) {
      elementStart = i;
      elementLine = line;
    }
    if (c === 34) inString = true;
    else if (c === 91 || c === 123 /* { */) depth++;
    else if (c === 93 || c === 125 /* } */) depth--;
  }
  if (closedAt === -1) problems.push(notValid(line, 'the array is not closed'));
  else if (firstNonSpace(text, closedAt + 1) < text.length) {
    let after = line;
    for (let i = closedAt + 1; i < firstNonSpace(text, closedAt + 1); i++)
      if (text.charCodeAt(i) === 10) after++;
    problems.push(notValid(after, 'text after the array'));
  }
  if (problems.length > 0) throw new ImportParseError(problems);
  return records;
}

function readJsonLines(content: string): ImportRecord[] {
  const records: ImportRecord[] = [];
  const problems: ImportProblem[] = [];
  content.split(/\r?\n/).forEach((text, i) => {
    if (text.trim() === '') return;
    try {
      records.push({ line: i + 1, value: JSON.parse(text) });
    } catch (err) {
      problems.push(notValid(i + 1, (err as Error).message));
    }
  });
  if (problems.length > 0) throw new ImportParseError(problems);
  return records;
}
