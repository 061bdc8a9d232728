// Renders a kustomize overlay of k8s/ offline with `kubectl kustomize`, as the tests read it.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

/** The objects of `k8s/overlays/<overlay>`, parsed from the rendered YAML. */
export function renderOverlay<T = unknown>(overlay: string): T[] {
  let yaml: string;
  try {
    yaml = execFileSync('kubectl', ['kustomize', path.join(repoRoot, 'k8s', 'overlays', overlay)], {
      encoding: 'utf8',
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(
        'kubectl is not on PATH: these tests render k8s/ with `kubectl kustomize` (Debian package kubectl)',
        { cause: err },
      );
    }
    throw err;
  }
  return parseAllDocuments(yaml).map((doc) => doc.toJSON() as T);
}
