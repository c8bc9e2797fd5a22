import { randomBytes } from 'node:crypto';
import type { Db } from '../db/db.js';
import type { SecretBox } from '../common/crypto.js';
import { BadRequestError, ConflictError, ValidationError } from '../common/errors.js';
import { parseEventFilter } from '../events/event-filter.js';
import { checkUrl, givenUrl, INSECURE_URLS_HINT, UnsafeUrlError, type Resolve } from './url-guard.js';
import type { SubscriptionRepository } from './subscription.repository.js';

/** Subscriptions per map (spec 8). */
export const MAX_SUBSCRIPTIONS_PER_MAP = 5;

/** A signing secret: 32 random bytes, base64 (44 characters). */
export function newSecret(): string {
  return randomBytes(32).toString('base64');
}

/** The `events` of a subscription: names of the stream filter (decisions §5), deduplicated; `*` alone when present. */
export function normalizeEvents(events: readonly string[], field = 'events'): string[] {
  if (events.length === 0) throw new ValidationError([{ field, message: 'must name at least one event type, or "*"' }]);
  const names = [...new Set(events.map((e) => (typeof e === 'string' ? e.trim() : '')))];
  if (names.some((n) => n === '' || n.includes(','))) throw new ValidationError([{ field, message: 'each entry must be one event type name' }]);
  parseEventFilter(names, field);
  return names.includes('*') ? ['*'] : names;
}

/** A webhook URL as stored, once the URL rules accept it (400 `invalid_webhook_url` otherwise). */
export async function checkedUrl(text: string, opts: { allowInsecureUrls: boolean; resolve?: Resolve | undefined }): Promise<string> {
  if (typeof text !== 'string') throw new ValidationError([{ field: 'url', message: 'must be a string' }]);
  try {
    const url = givenUrl(text);
    await checkUrl(url, { allowInsecure: opts.allowInsecureUrls, ...(opts.resolve ? { resolve: opts.resolve } : {}) });
    return url;
  } catch (err) {
    if (err instanceof UnsafeUrlError) {
      const hint = err.insecureSettingAllows ? `; ${INSECURE_URLS_HINT}` : '';
      throw new BadRequestError('invalid_webhook_url', `Webhook URL refused: ${err.message}${hint}`, [{ field: 'url', message: err.message }]);
    }
    throw err;
  }
}

export function urlTakenError(): ConflictError {
  return new ConflictError('webhook_url_exists', 'This map already has a webhook subscription for that URL');
}

/** A new subscription within the map's limit (the caller holds the map's webhook version). */
export async function insertSubscription(
  tx: Db,
  subs: SubscriptionRepository,
  box: SecretBox,
  s: { mapId: string; url: string; events: string[]; active: boolean; secret: string; managedBy: string | null },
): Promise<string> {
  if ((await subs.count(tx, s.mapId)) >= MAX_SUBSCRIPTIONS_PER_MAP) {
    throw new ConflictError('webhook_limit_reached', `A map has at most ${MAX_SUBSCRIPTIONS_PER_MAP} webhook subscriptions`);
  }
  const id = await subs.insert(tx, {
    mapId: s.mapId,
    url: s.url,
    events: s.events,
    active: s.active,
    secretEncrypted: box.encrypt(s.secret),
    managedBy: s.managedBy,
  });
  if (!id) throw urlTakenError();
  return id;
}
