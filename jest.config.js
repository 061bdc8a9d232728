// One jest configuration for the workspace. TypeScript is transformed by swc (no type-check here;
// `tsc --noEmit` does that). Kafka, PostgreSQL and Redis are real: the global setup makes sure the
// test Kafka broker runs and the servers answer.
/** @type {import('jest').Config} */
const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022', keepClassNames: true },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

// ESM-only packages that CommonJS code requires (jwks-rsa 4 -> jose 6; the auth service's
// oidc-provider 9 and, in its tests, openid-client 6 -> oauth4webapi 3; commander 15 of the CLIs). Jest's native require(esm)
// needs --experimental-vm-modules; instead swc turns these into CommonJS like our own TypeScript.
const ESM_ONLY_PACKAGES = ['jose', 'oidc-provider', 'openid-client', 'oauth4webapi', 'commander'];
const esmOnly = ESM_ONLY_PACKAGES.join('|');

const common = {
  rootDir: __dirname,
  transform: {
    '^.+\\.ts$': swc,
    [`/node_modules/\\.pnpm/(${esmOnly})@[^/]+/node_modules/(${esmOnly})/.+\\.m?js$`]: swc,
  },
  transformIgnorePatterns: [`/node_modules/(?!\\.pnpm/(${esmOnly})@|(${esmOnly})/)`],
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json', 'cjs', 'mjs'],
};

module.exports = {
  globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
  maxWorkers: process.env.JEST_WORKERS ?? 2,
  testTimeout: 30000,
  projects: [
    { ...common, displayName: 'libs', testMatch: ['<rootDir>/libs/*/test/**/*.test.ts'] },
    { ...common, displayName: 'gateway', testMatch: ['<rootDir>/gateway/test/**/*.test.ts'] },
    { ...common, displayName: 'services', testMatch: ['<rootDir>/services/*/test/**/*.test.ts'] },
    { ...common, displayName: 'deploy', testMatch: ['<rootDir>/deploy/test/**/*.test.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test-e2e/**/*.test.ts'] },
  ],
};
