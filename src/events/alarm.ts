/**
 * A sleep that another part of the process can cut short: a loop waits for its next round with
 * `sleep(ms)`, and a notification (NOTIFY, a new event, a stop) calls `ring()` to start it at once.
 * A ring while nobody sleeps is not kept: loops that must not miss one keep their own flag.
 */
export class Alarm {
  private ringNow: (() => void) | undefined;

  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.ringNow = done;
    }).finally(() => {
      this.ringNow = undefined;
    });
  }

  ring(): void {
    this.ringNow?.();
  }
}
