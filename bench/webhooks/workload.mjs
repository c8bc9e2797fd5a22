// Writing and collecting in bench/webhooks.mjs: kills in transactions of the batch path (maps taken in
// turn), the deliveries they should make, and what the receiver and webhook_deliveries say arrived.
import { distribution, drive, killInput, nowMs, sleep, toKillInput } from '../support.mjs';
import { ulidMs } from './settings.mjs';
import { broke, control } from './setup.mjs';

/** Transactions of `sizes[j]` kills each, on the next maps; returns the kills and their maps. */
export function plan(ctx, sizes) {
  return sizes.map((size) => {
    const map = ctx.maps[ctx.mapCursor++ % ctx.maps.length];
    return { map, kids: Array.from({ length: size }, () => ctx.killSeq++) };
  });
}

/** Commits the transactions over the writers (paced at `rate` transactions/s when given); durations in `ctx.txMs`. */
export async function write(ctx, txs, rate) {
  const txMs = [];
  ctx.txMs = txMs;
  await drive({
    count: txs.length,
    writers: ctx.writers,
    rate,
    op: async (j) => {
      const { map, kids } = txs[j];
      const began = nowMs();
      const res = await ctx.platform.kills.import(
        map.principal,
        map.id,
        kids.map((k) => toKillInput(killInput(k))),
      );
      txMs.push(nowMs() - began);
      if (res.inserted !== kids.length) throw new Error(`a batch of ${kids.length} kills stored ${res.inserted}`);
    },
  });
}

/** Every `<path> <killmail id>` the receiver should get for these transactions (healthy paths only). */
export function expectedKeys(txs, hung = new Set()) {
  const keys = [];
  for (const { map, kids } of txs) for (const s of map.subs) if (!hung.has(s.n)) for (const k of kids) keys.push(`${s.path} ${k}`);
  return keys;
}

/** Kills making `rate` deliveries/s for `seconds`, at most `txPerSecond` transactions/s. */
export function pacedPlan(ctx, rate, seconds) {
  const events = Math.round((rate / ctx.subsPerEvent) * seconds);
  const txs = Math.min(events, ctx.txPerSecond * seconds);
  return {
    txs: plan(
      ctx,
      Array.from({ length: txs }, (_, j) => Math.floor(((j + 1) * events) / txs) - Math.floor((j * events) / txs)),
    ),
    txRate: txs / seconds,
  };
}

/** Waits until the relay has published every event committed so far. */
export async function waitPublished(ctx) {
  const unpublished = async () => Number((await ctx.raw.query(ctx.unpublishedSql)).rows[0].n);
  const deadline = Date.now() + 60_000;
  while ((await unpublished()) > 0) {
    if (Date.now() > deadline || ctx.failed) throw new Error('the relay did not publish the events');
    await sleep(100);
  }
}

/**
 * Waits until the receiver has `expected` distinct deliveries of the phase (as long as they keep
 * coming: a slow worker is a figure, not a failure), then checks that every one arrived.
 */
export async function collect(ctx, phase, expected) {
  const { drainSeconds, stallSeconds } = ctx;
  const deadline = Date.now() + drainSeconds * 1000;
  let seen = -1;
  let movedAt = Date.now();
  for (;;) {
    const c = await control(ctx, `count?phase=${phase}`);
    if (c.distinct >= expected.length) break;
    if (ctx.failed) throw new Error(`${phase}: ${ctx.problems.join('; ')}`);
    if (c.distinct !== seen) [seen, movedAt] = [c.distinct, Date.now()];
    if (Date.now() > deadline || Date.now() - movedAt > stallSeconds * 1000) break;
    await sleep(100);
  }
  const report = await control(ctx, `report?phase=${phase}&keys=1`);
  const got = new Set(report.keys);
  delete report.keys;
  const missing = expected.filter((k) => !got.has(k));
  report.expected = expected.length;
  report.missing = missing.length;
  if (missing.length) {
    const states = (await ctx.raw.query('select state, count(*)::int as n from webhook_deliveries group by state order by state')).rows.map(
      (r) => `${r.n} ${r.state}`,
    );
    broke(
      ctx,
      `${phase}: ${missing.length} of ${expected.length} deliveries did not arrive (none for ${stallSeconds} s, or ${drainSeconds} s in all; ` +
        `e.g. ${missing.slice(0, 3).join(', ')}); webhook_deliveries: ${states.join(', ')}`,
    );
  }
  if (report.distinct > expected.length) broke(ctx, `${phase}: ${report.distinct - expected.length} deliveries that were not planned`);
  if (report.verified.failed > 0) broke(ctx, `${phase}: ${report.verified.failed} of ${report.verified.checked} sampled signatures did not verify`);
  return report;
}

/**
 * Share of the latency, ms (p50, p99) over the deliveries planned since `sinceMs`: event→planned (the
 * relay, the worker's consumer and its planning: webhook_deliveries.inserted_at − event_at).
 */
export async function shares(ctx, sinceMs) {
  const rows = (
    await ctx.raw.query(
      `select extract(epoch from d.event_at) * 1000 as event_ms, extract(epoch from d.inserted_at) * 1000 as planned_ms, d.event_id
           from webhook_deliveries d where d.inserted_at >= to_timestamp($1 / 1000.0)`,
      [sinceMs],
    )
  ).rows;
  // The relay gives an event its id (a ULID, whose first 48 bits are the ms it was made) after the
  // writer's commit: event→id is the write transaction and the relay's wake-up; id→planned the relay's
  // update and XADD, the worker's read and its planning insert.
  const pair = (xs) => {
    const d = distribution(xs);
    return [d.p50, d.p99];
  };
  return {
    planned: pair(rows.map((r) => r.planned_ms - r.event_ms)),
    eventToId: pair(rows.map((r) => ulidMs(r.event_id) - r.event_ms)),
    idToPlanned: pair(rows.map((r) => r.planned_ms - ulidMs(r.event_id))),
    writeTx: pair(ctx.txMs),
  };
}
