// Global teardown of the postgres jest project (see stack-teardown.ts).
export { tearDownStack as default } from './stack-teardown';
