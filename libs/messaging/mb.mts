import fs from 'node:fs';
import * as c from '@ordering/contracts'; const { safeParseEvent } = (c as any).default ?? c;
const text = fs.readFileSync('/tmp/payload.json', 'utf8');
const N = 20000;
for (const round of [1, 2, 3]) {
  let t = performance.now();
  for (let i = 0; i < N; i++) { const p = JSON.parse(text); const r = safeParseEvent(p); JSON.stringify(r.success ? r.event : p); }
  const all = (performance.now() - t) * 1000 / N;
  t = performance.now();
  for (let i = 0; i < N; i++) { JSON.parse(text); }
  const parse = (performance.now() - t) * 1000 / N;
  console.log(`round ${round}: parse+validate+stringify ${all.toFixed(1)} µs, JSON.parse alone ${parse.toFixed(1)} µs (${text.length} chars)`);
}
