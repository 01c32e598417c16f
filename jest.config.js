// Integration tests share one Temporal dev server, one PostgreSQL schema and one broker process,
// started by test/global-setup.ts; Temporal's native runtime wants a single jest worker (--runInBand).
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest'] },
  // jose 6 and uuid 14 ship ESM only; let swc turn them into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!(jose|uuid)/)'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 60000,
};
