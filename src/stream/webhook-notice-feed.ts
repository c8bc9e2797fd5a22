/**
 * Webhook notices on the map's streams (docs/api.md, Webhooks): the workers write what a map's owner is
 * to hear about its subscriptions (`webhook_failing`, `webhook_disabled`, `webhook_recovered`) to
 * PostgreSQL; each stream process reads the new ones every period (one query for all maps) and writes
 * each as an `event: <kind>` frame, without an id, to the connections of its map. Notices are not
 * events: they are not in the event log, carry no id, are not replayed on resume and never delivered
 * to webhooks. A process starts after the newest notice present.
 */
import type { Db } from '../db/db.js';
import type { Logger } from '../common/log.js';
import { WebhookNoticeRepository } from '../webhooks/webhook-notices.repository.js';

const BATCH = 500;

export class WebhookNoticeFeed {
  private timer: NodeJS.Timeout | undefined;
  private last: string | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly notify: (mapId: string, frame: string) => void,
    private readonly log: Logger,
    private readonly notices = new WebhookNoticeRepository(),
  ) {}

  /**
   * Takes the starting position now, then reads every period. Taken at the first period instead, the
   * notices written within that period after the role started (the first failures of a map just
   * connected) were already behind it, and no stream heard of them. A failed first read is left to the
   * next period (`read` logs it).
   */
  async start(periodMs: number): Promise<void> {
    await this.poll();
    this.timer ??= setInterval(() => void this.poll(), periodMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One read (or the one under way). */
  poll(): Promise<void> {
    this.running ??= this.read().finally(() => (this.running = undefined));
    return this.running;
  }

  private async read(): Promise<void> {
    try {
      this.last ??= await this.notices.newestId(this.db);
      for (;;) {
        const batch = await this.notices.after(this.db, this.last, BATCH);
        for (const n of batch) {
          this.notify(n.map_id, `event: ${n.kind}\ndata: ${JSON.stringify({ ...n.payload, map_id: n.map_id, at: n.at })}\n\n`);
          this.last = n.id;
        }
        if (batch.length < BATCH) return;
      }
    } catch (err) {
      this.log.warn({ err: { message: (err as Error).message } }, 'reading webhook notices failed; retrying at the next period');
    }
  }
}
