// The chart's alert rules as Helm renders them: valid for Prometheus (`promtool check rules`), doing
// what they say on example series (`promtool test rules`, alert-rules/alert-rules.promtool.yaml),
// and each linked to a section of docs/operations.md that exists.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { renderChart, repoRoot } from '../helm-tool/chart';
import type { K8sObject } from './support/renderings';

const RUNBOOK_BASE = 'https://runbooks.example/ordering/docs/operations.md';

const rule = renderChart<K8sObject>('production', {
  set: ['metrics.prometheusRule.enabled=true', `metrics.runbookBaseUrl=${RUNBOOK_BASE}`],
}).find((o) => o.kind === 'PrometheusRule')!;
const groups = rule.spec.groups as {
  name: string;
  rules: { alert?: string; annotations?: Record<string, string> }[];
}[];
const alerts = groups.flatMap((g) => g.rules);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alert-rules-'));
const rulesFile = path.join(dir, 'rules.yaml');
fs.writeFileSync(rulesFile, stringify({ groups }));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function promtool(args: string[]): { code: number; output: string } {
  try {
    const output = execFileSync('promtool', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, output };
  } catch (err) {
    const e = err as { status?: number; stdout?: string; stderr?: string };
    return { code: e.status ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** GitHub's anchor of a heading: lower case, spaces to dashes, punctuation dropped. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');

describe('the alert rules of the chart', () => {
  it('are valid Prometheus rules (promtool check rules)', () => {
    const result = promtool(['check', 'rules', rulesFile]);
    expect(result).toMatchObject({ code: 0 });
    expect(result.output).toMatch(new RegExp(`SUCCESS: ${alerts.length} rules found`));
  });

  it('fire on the example series that should page, and only on those (promtool test rules)', () => {
    const tests = parse(
      fs
        .readFileSync(path.join(__dirname, 'alert-rules', 'alert-rules.promtool.yaml'), 'utf8')
        .replaceAll('RUNBOOK_BASE', RUNBOOK_BASE),
    ) as Record<string, unknown>;
    const testsFile = path.join(dir, 'tests.yaml');
    fs.writeFileSync(testsFile, stringify({ rule_files: [rulesFile], ...tests }));
    const result = promtool(['test', 'rules', testsFile]);
    expect(result.output).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it('every alert pages, is tested, and links to its runbook section in docs/operations.md', () => {
    const runbook = fs.readFileSync(path.join(repoRoot, 'docs', 'operations.md'), 'utf8');
    const anchors = new Set([...runbook.matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1]!)));
    const tested = fs.readFileSync(path.join(__dirname, 'alert-rules', 'alert-rules.promtool.yaml'), 'utf8');
    expect(alerts.length).toBeGreaterThanOrEqual(8);
    for (const a of alerts) {
      const url = a.annotations?.runbook_url ?? '';
      expect(url.startsWith(`${RUNBOOK_BASE}#`)).toBe(true);
      expect({ alert: a.alert, anchorInRunbook: anchors.has(url.split('#')[1]!) }).toEqual({
        alert: a.alert,
        anchorInRunbook: true,
      });
      expect(tested).toContain(`alertname: ${a.alert}`);
    }
  });
});
