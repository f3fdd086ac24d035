/**
 * A worker process's share of the egress rules, for the multi-process egress tests (run with tsx):
 * holds the rules of RAMPART_TEST_EGRESS_TABLE (state in RAMPART_TEST_EGRESS_STATE, scanner uid
 * RAMPART_TEST_EGRESS_UID), prints "ready", and releases them on SIGTERM, as a worker does when it
 * stops. Killed with SIGKILL it leaves its holder file behind, as a crashed worker does.
 */
import { holdEgressRules } from '../../src/adapters/egress/nft-egress.js';

const env = process.env;
const rules = await holdEgressRules({
  policy: {
    table: env.RAMPART_TEST_EGRESS_TABLE ?? '',
    uid: Number(env.RAMPART_TEST_EGRESS_UID),
    // The rules judge every scanner process on the machine; other test files scan 127.0.0.2.
    allowPrivateTargets: ['127.0.0.2/32'],
    ownAddresses: [],
    resolvers: [],
  },
  stateDir: env.RAMPART_TEST_EGRESS_STATE ?? '',
  pathEnv: env.PATH ?? '',
});
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void rules.release().then(() => process.exit(0));
});
setInterval(() => undefined, 60_000);
