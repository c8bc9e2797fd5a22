import type { Request as ExRequest, RequestHandler, Response as ExResponse } from 'express';
import type { Metrics } from '../common/metrics.js';
import type { MapReference } from '../maps/map-access.js';
import { AUDIT_PERIOD_MS } from '../maps/audit/audit.service.js';
import type { AuditPeriod } from '../maps/audit/audit.dto.js';
import { matchesIfNoneMatch, type CachedRead, type MapReadCache, type MapReadVersions } from '../maps/map-read/read-cache.js';
import { jsonChunks } from '../maps/map-read/json-chunks.js';
import { openapiSpec } from './openapi.js';
import { profileOf } from '../http/key-profile.js';
import { requestPrincipal } from '../auth/request-token.js';
import { inReadSnapshot, withSnapshot } from '../db/db.js';
import type { TokenService } from '../auth/token.service.js';

/** What a map read's answer carries: clients and proxies keep it, but ask (If-None-Match) before each use. */
export const MAP_READ_CACHE_CONTROL = 'private, no-cache';

/** The header naming the newest event of the map whose effect a map read's answer includes ('0': none). */
export const MAP_EVENT_ID_HEADER = 'Map-Event-Id';

/**
 * A read whose snapshot holds events still waiting for their ids (committed, the relay has not given
 * them one yet: milliseconds) is read again after a short wait, so that its `Map-Event-Id` covers
 * exactly what it includes; for at most this long, and not at all when the oldest waiting event has
 * waited longer (the relay is down: the read is answered at once, with the newest id given so far).
 */
const PENDING_WAIT_MS = 1_000;

interface CachedOperation {
  pattern: RegExp;
  /** The express route template, for the metrics label of an answer given here. */
  route: string;
  /** The `/api/maps/{map_id}/…` family names its map in the path; `/api/map/*` in the query. */
  byPath: boolean;
  /** When the body may change with no change to the map (a time window moves), from the body and query. */
  expiresAt?: (body: unknown, req: ExRequest, now: number) => number;
}

/** systems-kills answers the last `hours` hours: the body changes when its oldest kill leaves the window. */
function killsWindowEnd(body: unknown, req: ExRequest): number {
  const hours = typeof req.query.hours === 'string' ? Number(req.query.hours) : 24;
  let oldest = Infinity;
  for (const system of (body as { data?: { kills?: { kill_time?: string }[] }[] }).data ?? []) {
    for (const kill of system.kills ?? []) {
      const t = Date.parse(kill.kill_time ?? '');
      if (t < oldest) oldest = t;
    }
  }
  return Number.isFinite(hours) ? oldest + hours * 3_600_000 : 0;
}

/** character-activity with `days` counts UTC days back from today: the body changes at the next UTC midnight. */
function nextUtcMidnight(_body: unknown, req: ExRequest, now: number): number {
  if (req.query.days === undefined) return Infinity;
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}

/** The audit feed answers the last `period`: the body changes when its oldest entry leaves the window. */
function auditWindowEnd(body: unknown, req: ExRequest): number {
  const period = AUDIT_PERIOD_MS[req.query.period as AuditPeriod];
  const entries = (body as { data?: { inserted_at?: string }[] }).data ?? [];
  const oldest = Date.parse(entries.at(-1)?.inserted_at ?? '');
  return period !== undefined && Number.isFinite(oldest) ? oldest + period : Infinity;
}

const EXPIRY: Record<string, CachedOperation['expiresAt']> = {
  '/api/map/systems-kills': killsWindowEnd,
  '/api/map/audit': auditWindowEnd,
  '/api/map/character-activity': nextUtcMidnight,
};

/**
 * Paths under the map families that are not map content: the event log (its own cursor), webhook
 * management (subscription state changes with every delivery, which no map version follows) and routes
 * (they follow the static data's stargates too, which a new import changes under an unchanged map) and
 * presence (the stream connections, which no map version follows).
 */
const NOT_CACHED = ['/api/maps/{map_id}/events', '/api/maps/{map_id}/webhooks', '/api/maps/{map_id}/routes', '/api/maps/{map_id}/presence'];

/** The GET operations of the map read families, from the OpenAPI document (see NOT_CACHED). */
function cachedOperations(): CachedOperation[] {
  const spec = openapiSpec() as unknown as { paths: Record<string, { get?: { security?: Record<string, string[]>[] } }> };
  const list: CachedOperation[] = [];
  for (const [path, operations] of Object.entries(spec.paths)) {
    const byPath = path.startsWith('/api/maps/{map_id}/');
    if (!operations.get || !(byPath || path.startsWith('/api/map/')) || NOT_CACHED.some((p) => path.startsWith(p))) continue;
    if (!(operations.get.security ?? []).some((s) => 'map_key' in s)) continue;
    const source = path
      .split(/(\{[^}]+\})/)
      .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    list.push({ pattern: new RegExp(`^${source}/?$`, 'i'), route: path.replace(/\{([^}]+)\}/g, ':$1'), byPath, expiresAt: EXPIRY[path] });
  }
  return list;
}

/** The query string with its parameters in a fixed order, so `?a=1&b=2` and `?b=2&a=1` share an entry. */
function canonicalQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return '';
  const params = [...new URLSearchParams(url.slice(q + 1))];
  params.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return new URLSearchParams(params).toString();
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function answer(req: ExRequest, res: ExResponse, read: Pick<CachedRead, 'etag' | 'chunks' | 'length'>): void {
  res.setHeader('ETag', read.etag);
  res.setHeader('Cache-Control', MAP_READ_CACHE_CONTROL);
  if (matchesIfNoneMatch(req.headers['if-none-match'], read.etag)) {
    res.status(304).end();
    return;
  }
  res.status(200);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', read.length);
  // The chunks go out as they are kept (one write each, corked into as few packets as the socket
  // allows); no copy of the whole body is made.
  res.cork();
  for (const chunk of read.chunks) res.write(chunk);
  res.end();
  res.uncork();
}

/**
 * Map reads with ETags and a per-process cache (docs/decisions/0002-map-read-cache.md). For a GET of the
 * `/api/map/*` and `/api/maps/{map_id}/*` read families by a map key, one indexed query loads the key's
 * map with its read version; the access rules of map-access.ts run on it. When this process holds the
 * body of the same path and query at that version, it is answered from memory (or 304 when the client's
 * `If-None-Match` names its ETag); otherwise the route computes it, and its JSON is serialised once, in
 * bounded chunks (never as one string), which are hashed for the ETag, kept and sent. Anything else (errors, another principal, a
 * change whose event has no id yet) goes to the route as before; 200s still get their ETag.
 */
export function mapReadCache(deps: { tokens: TokenService; versions: MapReadVersions; cache: MapReadCache; metrics: Metrics }): RequestHandler {
  const operations = cachedOperations();
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const operation = operations.find((o) => o.pattern.test(req.path));
    if (!operation) return next();
    void (async () => {
      const principal = await requestPrincipal(req, deps.tokens);
      if (principal?.kind !== 'map_key') return next();
      let ref: MapReference;
      if (operation.byPath) {
        const segment = safeDecode(req.path.split('/')[3] ?? '');
        // Not UTF-8: the router answers it as it always has.
        if (segment === undefined) return next();
        ref = segment;
      } else {
        const { map_id, slug } = req.query;
        if ((map_id !== undefined && typeof map_id !== 'string') || (slug !== undefined && typeof slug !== 'string')) return next();
        ref = { map_id, slug };
      }
      // Undefined: a malformed reference or another map; the route answers its 400 or 404 as always.
      const current = await deps.versions.current(principal, ref);
      if (!current) return next();
      const { map, version } = current;
      // Each key profile reads its own shapes (src/http/key-profile.ts): an answer is kept for its profile only.
      const key = `${map.id} ${profileOf(principal)} ${req.path} ${canonicalQuery(req.originalUrl)}`;
      const now = Date.now();
      const hit = version === undefined ? undefined : deps.cache.get(key, version, now);
      if (hit) {
        res.locals.route = operation.route;
        deps.metrics.mapReads.inc({ result: matchesIfNoneMatch(req.headers['if-none-match'], hit.etag) ? 'not_modified' : 'hit' });
        // The version names the map's newest event id: an entry current at it carries that very id.
        res.setHeader(MAP_EVENT_ID_HEADER, hit.eventId);
        answer(req, res, hit);
        return;
      }
      // A miss is computed in one read snapshot (REPEATABLE READ), in which the version and the newest
      // event id are read first: the answer includes exactly the events up to that id.
      const started = Date.now();
      for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
        const outcome = await inReadSnapshot(deps.versions.handle, async (tx) => {
          const snap = await deps.versions.current(principal, ref, tx);
          if (!snap) return 'route' as const;
          if (snap.pendingMs !== null && snap.pendingMs < PENDING_WAIT_MS && Date.now() - started < PENDING_WAIT_MS) return 'again' as const;
          res.setHeader(MAP_EVENT_ID_HEADER, snap.lastEventId);
          await new Promise<void>((done) => {
            const json = res.json.bind(res);
            res.json = (body: unknown) => {
              if (res.statusCode !== 200) {
                res.removeHeader(MAP_EVENT_ID_HEADER);
                json(body);
                done();
                return res;
              }
              const read = jsonChunks(body);
              if (snap.version !== undefined)
                deps.cache.set(key, {
                  ...read,
                  eventId: snap.lastEventId,
                  version: snap.version,
                  expiresAt: operation.expiresAt?.(body, req, now) ?? Infinity,
                });
              deps.metrics.mapReads.inc({
                result: matchesIfNoneMatch(req.headers['if-none-match'], read.etag) ? 'not_modified' : snap.version === undefined ? 'uncached' : 'miss',
              });
              answer(req, res, read);
              done();
              return res;
            };
            // However the route ends (an error answered otherwise, the client gone), the snapshot ends with it.
            res.once('finish', () => done());
            res.once('close', () => done());
            withSnapshot(tx, () => next());
          });
          return 'answered' as const;
        });
        if (outcome === 'answered') return;
        if (outcome === 'route') return next();
        await new Promise((r) => setTimeout(r, wait));
      }
    })().catch(next);
  };
}
