// Global teardown of the pglite jest project (see stack-teardown.ts).
export { tearDownStack as default } from './stack-teardown';
