// Onboarding many accounts from a file: every record is checked first and every problem is
// reported with its line; then all accounts are written in one transaction, or none.
import { AppError, InputError } from '@ordering/errors';
import type { CustomersDatabase } from '../data-access/customers-database';
import type { AccountAdministration } from './account-admin-use-case';
import { CreateAccountInput } from './account-inputs';
import { type ImportFormat, type ImportProblem, ImportParseError } from '@ordering/import-files';
import { parseImportFile } from './import-file-parser';
import { parseInput } from './input-validation';

export class ImportError extends InputError {
  constructor(readonly problems: ImportProblem[]) {
    super(
      `The import was refused; nothing was written. ${problems.length} problem(s):\n${problems
        .map((p) => `line ${p.line}: ${p.param ? `${p.param}: ` : ''}${p.message}`)
        .join('\n')}`,
      problems[0]?.param,
      'invalid_import',
    );
  }
}

export class BulkImport {
  constructor(
    private readonly db: CustomersDatabase,
    private readonly admin: AccountAdministration,
  ) {}

  async importAccounts(
    format: ImportFormat,
    content: string,
  ): Promise<{ imported: number; cust_ids: string[] }> {
    let records;
    try {
      records = parseImportFile(format, content);
    } catch (err) {
      if (err instanceof ImportParseError) throw new ImportError(err.problems);
      throw err;
    }
    if (records.length === 0) throw new ImportError([{ line: 1, message: 'the file holds no account' }]);

    const problems: ImportProblem[] = [];
    const valid: { line: number; input: CreateAccountInput }[] = [];
    for (const { line, value } of records) {
      try {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          throw new InputError('an account must be a JSON object');
        }
        valid.push({ line, input: parseInput(CreateAccountInput, value) });
      } catch (err) {
        problems.push(problemOf(line, err));
      }
    }

    // Ids unique in the file and new; parents existing or defined on an earlier line.
    const seen = new Map<string, number>();
    for (const { line, input } of valid) {
      const earlier = seen.get(input.cust_id);
      if (earlier !== undefined) {
        problems.push({
          line,
          param: 'cust_id',
          message: `${input.cust_id} is already defined on line ${earlier}`,
        });
      } else if (await this.db.customers.find(input.cust_id)) {
        problems.push({ line, param: 'cust_id', message: `an account ${input.cust_id} already exists` });
      }
      seen.set(input.cust_id, earlier ?? line);
      const parent = input.parent_cust_id;
      if (
        parent &&
        !(seen.has(parent) && seen.get(parent)! < line) &&
        !(await this.db.customers.find(parent))
      ) {
        problems.push({
          line,
          param: 'parent_cust_id',
          message: `no account ${parent} exists or is defined on an earlier line`,
        });
      }
    }
    if (problems.length > 0) throw new ImportError(problems.sort((a, b) => a.line - b.line));

    await this.db.transaction(async (tx) => {
      for (const { line, input } of valid) {
        try {
          await this.admin.insertAccount(tx, input, '');
        } catch (err) {
          throw new ImportError([problemOf(line, err)]);
        }
      }
    });
    return { imported: valid.length, cust_ids: valid.map((v) => v.input.cust_id) };
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
