// The README's state diagram is the transition table's, so the documentation cannot drift from the code.
import fs from 'node:fs';
import path from 'node:path';
import { TRANSITIONS, stateDiagram, statusesAllowing } from '../src/domain/order-transitions';

it('shows the diagram generated from the transition table', () => {
  const readme = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  expect(readme).toContain(stateDiagram());
  expect(TRANSITIONS.length).toBe(7);
  expect(statusesAllowing('cancel')).toEqual(['pending_approval', 'approved']);
});
