// Importing items from a file: every record is checked first and every problem is reported with
// its line and field; then all items are written in one transaction (new ones created, existing
// item codes updated), or none. Items that existed and changed get one change message each.
import { newId } from '@ordering/contracts';
import { AppError, InputError } from '@ordering/errors';
import { enqueueMessages } from '@ordering/messaging';
import { parseBody } from '@ordering/http';
import type { ItemImportRepository } from '../data-access/item-import-repository';
import type { Clock } from '@ordering/service';
import { itemValues } from './catalog-admin-use-case';
import { changedAspects, itemChangeMessage } from './item-changes';
import { CreateItemInput } from './item-inputs';
import { type ImportFormat, type ImportProblem, ImportParseError } from '@ordering/import-files';
import { parseImportFile } from './import-file-parser';

/** Problems quoted in the error message; `error.problems` holds every one. */
const PROBLEMS_IN_MESSAGE = 20;

export class ImportError extends InputError {
  constructor(readonly problems: ImportProblem[]) {
    super(
      `The import was refused; nothing was written. ${problems.length} problem(s):\n${problems
        .slice(0, PROBLEMS_IN_MESSAGE)
        .map((p) => `line ${p.line}: ${p.param ? `${p.param}: ` : ''}${p.message}`)
        .join('\n')}${problems.length > PROBLEMS_IN_MESSAGE ? '\n...' : ''}`,
      problems[0]?.param,
      'invalid_import',
    );
    Object.assign(this, { details: { problems } });
  }
}

export interface ImportResult {
  object: 'catalog_import';
  imported: number;
  created: number;
  updated: number;
  /** Change messages written (one per existing item that changed). */
  changes: number;
}

export class BulkImport {
  constructor(
    private readonly repo: ItemImportRepository,
    private readonly clock: Clock,
  ) {}

  async importItems(format: ImportFormat, content: string): Promise<ImportResult> {
    let records;
    try {
      records = parseImportFile(format, content);
    } catch (err) {
      if (err instanceof ImportParseError) throw new ImportError(err.problems);
      throw err;
    }
    if (records.length === 0) throw new ImportError([{ line: 1, message: 'the file holds no item' }]);

    const categories = await this.repo.categoryIds();
    const problems: ImportProblem[] = [];
    const valid: { line: number; input: CreateItemInput }[] = [];
    const seen = new Map<string, number>();
    for (const { line, value } of records) {
      let input: CreateItemInput;
      try {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          throw new InputError('an item must be a JSON object');
        }
        input = parseBody(CreateItemInput, value);
      } catch (err) {
        problems.push(problemOf(line, err));
        continue;
      }
      const earlier = seen.get(input.item_code);
      if (earlier !== undefined) {
        problems.push({
          line,
          param: 'item_code',
          message: `${input.item_code} is already on line ${earlier}`,
        });
        continue;
      }
      seen.set(input.item_code, line);
      if (!categories.has(input.category_id)) {
        problems.push({ line, param: 'category_id', message: `no category ${input.category_id}` });
        continue;
      }
      valid.push({ line, input });
    }
    if (problems.length > 0) throw new ImportError(problems.sort((a, b) => a.line - b.line));

    const now = this.clock.now();
    return this.repo.transaction(async (trx) => {
      const upserted = await this.repo.upsert(
        trx,
        valid.map(({ input }) => ({ id: newId('itm', now.getTime()), values: itemValues(input) })),
        now,
      );
      const byCode = new Map(valid.map((v) => [v.input.item_code, v.input]));
      const messages = upserted.flatMap((item) => {
        if (!item.before) return [];
        const aspects = changedAspects(item.before, {
          ...item.before,
          ...itemValues(byCode.get(item.item_code)!),
        });
        return aspects.length > 0 ? [itemChangeMessage(item, aspects, null, now)] : [];
      });
      await enqueueMessages(trx, messages);
      const created = upserted.filter((u) => !u.before).length;
      return {
        object: 'catalog_import' as const,
        imported: upserted.length,
        created,
        updated: upserted.length - created,
        changes: messages.length,
      };
    });
  }
}

function problemOf(line: number, err: unknown): ImportProblem {
  if (err instanceof AppError) {
    return {
      line,
      ...(err.param ? { param: err.param } : {}),
      message: err.message.replace(`${err.param}: `, ''),
    };
  }
  throw err;
}
