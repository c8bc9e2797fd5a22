/**
 * A map key's compatibility profile: the wire shapes of everything the key reads (docs/api.md, "Key
 * profiles"). `spec` is the service API exactly; `reference` gives clients written against the
 * reference server that server's shapes where they differ from the spec:
 *
 * - REST: in every character object (eve_id, name, corporation_id, corporation_ticker, alliance_id,
 *   alliance_ticker), `corporation_id` and `alliance_id` are JSON integers (alliance_id null when
 *   absent), not decimal strings; `eve_id` stays a string, as the reference server sends it.
 * - Stream: each event frame has an `event: <type>` line and a `timestamp` field (src/stream/sse-frames.ts),
 *   and character objects in event payloads are shaped as above.
 */
import type { Request as ExRequest, RequestHandler } from 'express';

/** A map key's compatibility profile. */
export type KeyProfile = 'spec' | 'reference';
export const KEY_PROFILES: readonly KeyProfile[] = ['spec', 'reference'];

/** The profile a principal's answers take: map keys have one; every other caller reads the spec. */
export function profileOf(principal: { kind: string; profile?: KeyProfile } | null | undefined): KeyProfile {
  return principal?.kind === 'map_key' ? (principal.profile ?? 'spec') : 'spec';
}

const DIGITS = /^[0-9]{1,20}$/;

/** A character in its public form (spec §2.4): the one object whose ids the reference server sends as integers. */
function isCharacter(o: Record<string, unknown>): boolean {
  return typeof o.eve_id === 'string' && 'corporation_id' in o && 'corporation_ticker' in o && 'alliance_id' in o;
}

function integerId(value: unknown): unknown {
  return typeof value === 'string' && DIGITS.test(value) ? Number(value) : value;
}

/**
 * `body` in the reference server's shapes: a copy in which every character object, at any depth, has
 * integer `corporation_id` and `alliance_id`. Nothing else changes; the argument is not modified.
 */
export function referenceShape(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(referenceShape);
  if (body === null || typeof body !== 'object') return body;
  const o = body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k] = referenceShape(v);
  if (isCharacter(o)) {
    out.corporation_id = integerId(o.corporation_id);
    out.alliance_id = integerId(o.alliance_id);
  }
  return out;
}

/** The body as the request's key reads it. */
export function shapeFor(profile: KeyProfile, body: unknown): unknown {
  return profile === 'reference' ? referenceShape(body) : body;
}

/**
 * Successful JSON answers to a map key of the reference profile take the reference shapes. Mounted
 * after the map read cache (src/api/map-read-cache.ts), so its answer is shaped before it is hashed
 * and kept (the cache keys entries by profile too). The principal is the one the route authenticated
 * (`req.user`, set by tsoa before the controller answers).
 */
export function keyProfileShapes(): RequestHandler {
  return (req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const principal = (req as ExRequest & { user?: { kind: string; profile?: KeyProfile } }).user;
      if (res.statusCode >= 300 || profileOf(principal) === 'spec') return json(body);
      return json(referenceShape(body));
    };
    next();
  };
}
