/**
 * The redis-cluster tier runs its suites on the cluster its global setup started: the test Redis
 * they are given is a cluster node, spoken to as a cluster, with three masters serving every slot.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { TEST_REDIS_CLUSTER, TEST_REDIS_ENV, TEST_REDIS_URL } from '../support/db.js';

describe('the redis-cluster tier', () => {
  it('points the suites at a 3-master Redis Cluster with every slot served', async () => {
    expect(TEST_REDIS_CLUSTER).toBe(true);
    expect(TEST_REDIS_ENV).toEqual({ REDIS_URL: TEST_REDIS_URL, REDIS_CLUSTER: 'true' });
    const node = createClient({ url: TEST_REDIS_URL });
    await node.connect();
    try {
      const info = String(await node.sendCommand(['CLUSTER', 'INFO']));
      expect(info).toMatch(/^cluster_state:ok\s*$/m);
      expect(info).toMatch(/^cluster_slots_assigned:16384\s*$/m);
      expect(info).toMatch(/^cluster_size:3\s*$/m);
    } finally {
      await node.close();
    }
  });
});
