/**
 * A Redis of a test's own that the test restarts: one server without persistence (restarted empty),
 * or, on the redis-cluster tier, a 3-master cluster whose master serving a given key is SIGKILLed, its
 * replica taking over, and started again (it rejoins as a replica).
 */
import { RedisClusterServer } from './redis-cluster.js';
import { OwnRedis } from './redis-server.js';

export class RestartableRedis {
  private constructor(
    readonly url: string,
    readonly restart: () => Promise<void>,
    readonly destroy: () => Promise<void>,
  ) {}

  /** `cluster`: a cluster, whose restart is that of the master serving `keyOf()` at the time. */
  static async create(cluster: boolean, keyOf: () => string): Promise<RestartableRedis> {
    if (!cluster) {
      const own = await OwnRedis.create({ persist: false });
      const restart = async () => {
        await own.stop();
        await new Promise((r) => setTimeout(r, 1000));
        await own.start();
      };
      return new RestartableRedis(own.url, restart, () => own.destroy());
    }
    const c = await RedisClusterServer.start();
    const restart = async () => {
      const master = await c.masterOf(keyOf());
      await c.kill(master);
      await c.waitFailedOver(master);
      await c.restart(master);
    };
    return new RestartableRedis(c.url, restart, () => c.stop());
  }
}
