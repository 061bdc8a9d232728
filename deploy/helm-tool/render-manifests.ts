// `pnpm render-manifests`: writes the plain Kubernetes manifests k8s/<environment>/ordering.yaml from the Helm chart
// (one file per environment), for teams that apply manifests without Helm. Real Helm, fetched and
// cached on first use (helm-binary.ts).
import fs from 'node:fs';
import path from 'node:path';
import { ENVIRONMENT_NAMES, plainManifests, plainManifestsFile, repoRoot } from './chart';
import { ensureHelm } from './helm-binary';

ensureHelm((m) => console.log(m));
for (const environment of ENVIRONMENT_NAMES) {
  const file = plainManifestsFile(environment);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, plainManifests(environment));
  console.log(`wrote ${path.relative(repoRoot, file)}`);
}
