/**
 * Errors a Redis Cluster answers while a master's slots have no master (between its loss and its
 * replica's promotion), and the commands of a node's client the cluster client let go while it learned
 * the new layout, are an unavailable dependency (503 with Retry-After), not a server error.
 */
import { describe, expect, it } from 'vitest';
import { toAppError } from '../../src/common/errors.js';

describe('toAppError on Redis Cluster errors', () => {
  it.each([
    'CLUSTERDOWN The cluster is down',
    'TRYAGAIN Multiple keys request during rehashing of slot',
    'MASTERDOWN Link with MASTER is down',
    'LOADING Redis is loading the dataset in memory',
    'Disconnects client',
  ])('answers 503 dependency_unavailable for %s', (message) => {
    const e = toAppError(new Error(message));
    expect(e?.status).toBe(503);
    expect(e?.code).toBe('dependency_unavailable');
    expect(e?.headers['Retry-After']).toMatch(/^\d+$/);
  });

  it('leaves other Redis errors alone (a script error is a bug, not an outage)', () => {
    expect(toAppError(new Error('ERR Error running script'))).toBeUndefined();
    expect(toAppError(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'))).toBeUndefined();
  });
});
