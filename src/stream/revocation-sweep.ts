/**
 * Closes the streams of revoked keys: every period, one query asks which of the keys holding a
 * connection are still valid, and the streams of the keys it was asked about and did not find are
 * closed. A stream that opened while the query ran is judged by the next sweep, never by an answer
 * about other keys: its key was not asked about, so its absence from the answer says nothing.
 * When the database cannot answer, nothing is closed and the next sweep asks again.
 */
import type { Logger } from '../common/log.js';

export interface SweptStream {
  readonly principal: { readonly keyId: string };
  close(reason: 'revoked'): void;
}

export class RevocationSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly open: ReadonlySet<SweptStream>,
    /** Which of these key ids are still valid. */
    private readonly liveKeyIds: (keyIds: string[]) => Promise<Set<string>>,
    private readonly log: Logger,
  ) {}

  start(periodMs: number): void {
    this.timer ??= setInterval(() => void this.sweep(), periodMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One sweep (or the one already running); resolves with how many streams it closed. */
  sweep(): Promise<number> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(): Promise<number> {
    if (this.open.size === 0) return 0;
    const asked = new Set<string>();
    for (const s of this.open) asked.add(s.principal.keyId);
    let live: Set<string>;
    try {
      live = await this.liveKeyIds([...asked]);
    } catch (err) {
      this.log.warn({ err: { message: (err as Error).message } }, 'revocation sweep failed; retrying at the next one');
      return 0;
    }
    let closed = 0;
    for (const s of [...this.open]) {
      const keyId = s.principal.keyId;
      if (asked.has(keyId) && !live.has(keyId)) {
        s.close('revoked');
        closed++;
      }
    }
    return closed;
  }
}
