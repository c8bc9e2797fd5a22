import type { Logger } from '../common/log.js';
import type { EventConsumer } from '../events/transport/types.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** Events read per batch, and how long a read waits for them. */
const BATCH = 500;
const WAIT_MS = 1_000;

/**
 * The worker role with SERVICE_WEBHOOKS_ENABLED off: it moves the webhook consumer's position past
 * every event committed, delivering nothing, so that switching webhooks on later delivers only what is
 * committed from then on (events written while they were off are never sent). Without it the durable
 * consumer would catch up from its old position, and a restart with the setting on would deliver days
 * of events that were written while webhooks were off.
 */
export class WebhookEventSkipper {
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly o: { consumer: EventConsumer; log: Logger }) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const events = await this.o.consumer.next(BATCH, WAIT_MS);
        if (events.length) await this.o.consumer.commit(events);
      } catch (err) {
        if (!this.running) break;
        this.o.log.warn({ err }, 'passing over events while webhooks are off failed; retrying');
        await sleep(1_000);
      }
    }
  }

  /** Stops reading; a read in progress ends at once (the consumer is closed). */
  async stop(): Promise<void> {
    this.running = false;
    await this.o.consumer.close();
    await this.loop;
  }
}
