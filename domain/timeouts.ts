// Timeouts that decide how fast the exchange recovers from a crashed process (docs/decisions.md,
// "Recovery after a crash"). Pure constants: the API, the activities and the workflow sandbox all
// read them.

/**
 * How long a workflow task may run before Temporal hands it to another worker. A worker killed in
 * the middle of one holds its workflow this long; Temporal's default is 10 s. Workflow tasks here
 * take milliseconds (every I/O is an activity), so 4 s leaves a loaded machine room and a
 * connector's retry an answer within seconds of the restart.
 */
export const WORKFLOW_TASK_TIMEOUT = '4 seconds';

/**
 * How long a workflow task waits on the sticky queue of the worker that has the workflow cached
 * before any worker may take it (Temporal's default 10 s). A killed worker polls no more.
 */
export const STICKY_QUEUE_TIMEOUT = '1 second';

/**
 * A persistence activity (one read-model transaction, milliseconds) that a dead worker held is
 * retried after this. The delays chain: a timed-out activity's completion is then scheduled on the
 * dead worker's sticky queue, so the retry waits for this plus STICKY_QUEUE_TIMEOUT.
 */
export const PERSISTENCE_ACTIVITY_TIMEOUT = '3 seconds';
