// Lints an OpenAPI document with Redocly's `recommended` ruleset (@redocly/openapi-core, the engine
// of `redocly lint`). The package is ESM-only, so it runs in a child Node process of its own rather
// than inside jest's module system.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  pointer: string | undefined;
}

const SCRIPT = `
const [, documentPath, corePath] = process.argv;
const { createConfig, lintFromString } = await import(corePath);
const { readFileSync } = await import('node:fs');
const config = await createConfig({ extends: ['recommended'] });
const problems = await lintFromString({ source: readFileSync(documentPath, 'utf8'), absoluteRef: documentPath, config });
process.stdout.write(JSON.stringify(problems.map((p) => ({
  ruleId: p.ruleId, severity: p.severity, message: p.message, pointer: p.location?.[0]?.pointer,
}))));
`;

export async function lintOpenApi(document: unknown): Promise<LintProblem[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'openapi-lint-'));
  try {
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const corePath = require.resolve('@redocly/openapi-core');
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--input-type=module', '-e', SCRIPT, file, corePath],
        { maxBuffer: 64 * 1024 * 1024 },
        (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out)),
      );
    });
    return JSON.parse(stdout) as LintProblem[];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
