// Integrators generate clients from /v1/openapi.json rather than read it. This generates the
// TypeScript types with openapi-typescript (its CLI, as the gateway README tells integrators) from
// the document the gateway serves, and type-checks a small openapi-fetch integration against them
// (test/support/generated-client/sample-integration.ts) with `strict`: a change of the document
// that breaks generated clients (a lost operation or schema, a typo becoming `unknown`) fails here.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as ts from 'typescript';
import { ROUTES, openApiDocument } from '../src';

const SAMPLE_DIR = path.join(__dirname, 'support', 'generated-client');
const SAMPLE = path.join(SAMPLE_DIR, 'sample-integration.ts');
const GENERATED = path.join(SAMPLE_DIR, 'schema.d.ts');

function generateTypes(document: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'openapi-typescript-'));
  try {
    writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(document));
    const cli = path.join(__dirname, '..', 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
    return execFileSync(process.execPath, [cli, path.join(dir, 'openapi.json')], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Type-checks the sample with the generated `schema.d.ts` served from memory beside it. */
function typeCheck(generated: string): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (file) => path.resolve(file) === GENERATED || fileExists.call(host, file);
  host.readFile = (file) => (path.resolve(file) === GENERATED ? generated : readFile.call(host, file));
  host.getSourceFile = (file, language, ...rest) =>
    path.resolve(file) === GENERATED
      ? ts.createSourceFile(file, generated, language)
      : getSourceFile.call(host, file, language, ...rest);
  const program = ts.createProgram([SAMPLE], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('a client generated from the served OpenAPI document', () => {
  const document = openApiDocument(ROUTES, { authIssuer: 'https://auth.ordering.test' });
  let generated: string;

  beforeAll(() => {
    generated = generateTypes(document);
  }, 30_000);

  it('openapi-typescript generates the paths and schemas, without an index signature on resources', () => {
    expect(generated).toContain('"/v1/orders/{id}/cancel"');
    expect(generated).toContain('Error: {');
    expect(generated).not.toContain('[key: string]: unknown');
    expect(generated).not.toMatch(/& unknown/);
  });

  it('a strict openapi-fetch integration type-checks against the generated types', () => {
    expect(typeCheck(generated)).toEqual([]);
  }, 30_000);

  it('the same integration fails to type-check when the document loses what it uses', () => {
    const broken = generated.replace('"/v1/orders/{id}/cancel"', '"/v1/orders/{id}/void"');
    expect(typeCheck(broken).join('\n')).toContain('/v1/orders/{id}/cancel');
  }, 30_000);
});
