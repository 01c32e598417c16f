// The order of the test files (jest.config.js testSequencer): jest's own (the slowest and the
// failed first, by its timing cache), except that the files that make Cargo Co-op a partner of
// Baltic Shippers on the shared `npm start` run after the others. Cargo's event feed then holds
// Baltic's events for good, and the walkthrough's Broker-profile run (IS-2: a non-partner's lists
// and feed hold nothing of the pair's) needs the demo organizations as the seed made them. Which
// file ran first depended on the timing cache of earlier runs, so the walkthrough failed or passed
// by the history of the machine.
const Sequencer = require('@jest/test-sequencer').default;

const MAKE_CARGO_A_PARTNER = ['conformance-connectors', 'clients'].map((name) => `/test/${name}.test.ts`);

class DemoOrganizationsLast extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    const last = (test) => MAKE_CARGO_A_PARTNER.findIndex((suffix) => test.path.endsWith(suffix));
    return [...sorted.filter((t) => last(t) < 0), ...sorted.filter((t) => last(t) >= 0).sort((a, b) => last(a) - last(b))];
  }
}

module.exports = DemoOrganizationsLast;
