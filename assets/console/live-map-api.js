/*
 * The live map's REST client: the public endpoints the map is loaded from, with the page's map key in
 * the Authorization header (the static information needs none), and errors as a person reads them.
 * The map reads (`GET /api/map/systems`, `…/connections`, `…/systems-kills`) answer with the
 * `Map-Event-Id` header: the newest event whose effect the answer includes, the stream's resume point.
 */
(() => {
  'use strict';

  class ApiError extends Error {
    constructor(status, code, message, retryAfter) {
      super(message);
      this.status = status;
      this.code = code;
      this.retryAfter = retryAfter;
    }
  }

  const MAP_KEY_SHAPE = 'a map API key (mik_ and 43 characters, from the map’s owner or `mapintel admin issue-key`)';

  /**
   * What a refused key was, from the 401's message (the server names the kind it was given, or says
   * revoked or not valid) and, failing that, from the key's prefix.
   */
  function keyKind(detail, key) {
    const said = detail || '';
    if (/not an ACL API key/.test(said)) return 'acl';
    if (/not the admin token/.test(said)) return 'admin';
    if (/has been revoked/.test(said)) return 'revoked';
    if (/none was given/.test(said)) return 'missing';
    const k = key || '';
    if (k.startsWith('acl_')) return 'acl';
    if (k.startsWith('adm_')) return 'admin';
    return 'invalid';
  }

  /** The sentence for a refused key: what it is and what to use instead. */
  function explainKey(kind) {
    switch (kind) {
      case 'acl':
        return 'This is an ACL API key (acl_…): it manages an access list (/api/acls), it does not open a map. Use ' + MAP_KEY_SHAPE + '.';
      case 'admin':
        return 'This is the admin token: it manages the service (/api/admin), it does not open a map. Use ' + MAP_KEY_SHAPE + ', or issue one with POST /api/admin/maps/{map}/keys.';
      case 'revoked':
        return 'This map key has been revoked. Ask the map’s owner for a new one: ' + MAP_KEY_SHAPE + '.';
      case 'missing':
        return 'No key given. Paste ' + MAP_KEY_SHAPE + '.';
      default:
        return 'This key is not valid here (mistyped, or not a key of this server). Paste ' + MAP_KEY_SHAPE + '.';
    }
  }

  /** A clear sentence for a refused request or stream (by status; the server's message when it sent one). */
  function explainStatus(status, detail, retryAfter, key) {
    const said = detail ? ': ' + detail : '';
    switch (status) {
      case 401:
        return explainKey(keyKind(detail, key)) + ' (401)';
      case 403:
        return 'Refused (403' + said + '). The event stream may be switched off on this server (SERVICE_SSE_ENABLED).';
      case 404:
        return 'No such map for this key (404' + said + '). Check the map id or slug.';
      case 429:
        return 'Too many requests or streams (429' + said + ').' + (retryAfter ? ' Retry in ' + retryAfter + ' s.' : ' Retry later.');
      case 503:
        return 'The server is unavailable (503' + said + '). Retry later.';
      default:
        return 'The server answered ' + status + said + '.';
    }
  }

  function describeError(err, key) {
    if (err instanceof ApiError) return explainStatus(err.status, err.message, err.retryAfter, key);
    return 'Could not reach the server (' + (err && err.message ? err.message : String(err)) + ').';
  }

  /** An event id (a ULID) just before `ms` (the event log's `after` is exclusive). */
  function ulidAt(ms) {
    const digits = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    let t = Math.max(0, Math.floor(ms));
    let out = '';
    for (let i = 0; i < 10; i++) {
      out = digits[t % 32] + out;
      t = Math.floor(t / 32);
    }
    return out + '0'.repeat(16);
  }

  /** A client for one map (UUID or slug) with one map key. */
  function client(key, mapRef) {
    const ref = encodeURIComponent(mapRef);
    const selector = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(mapRef) ? 'map_id=' + ref : 'slug=' + ref;
    async function call(path, withKey = true) {
      // no-store: each read is a fresh snapshot with its own Map-Event-Id.
      const res = await fetch(path, { headers: withKey ? { authorization: 'Bearer ' + key } : {}, cache: 'no-store' });
      if (!res.ok) {
        let body = null;
        try {
          body = await res.json();
        } catch {
          // no JSON body
        }
        throw new ApiError(res.status, body && body.code, body && body.error, res.headers.get('retry-after'));
      }
      const body = await res.json();
      return { body, eventId: res.headers.get('map-event-id') };
    }
    const get = async (path, withKey) => (await call(path, withKey)).body.data;
    /** A map read with the id of the newest event its answer includes (null if the server sends none). */
    const read = async (path) => {
      const r = await call(path);
      return { data: r.body.data, eventId: r.eventId };
    };
    return {
      key,
      mapRef,
      systems: () => read('/api/map/systems?' + selector),
      connections: () => read('/api/map/connections?' + selector),
      kills: () => read('/api/map/systems-kills?' + selector),
      system: (ssid) => read('/api/map/system?' + selector + '&id=' + ssid),
      signatures: (ssid) => get('/api/maps/' + ref + '/signatures' + (ssid === undefined ? '' : '?solar_system_id=' + ssid)),
      staticInfo: (ssid) => get('/api/common/system-static-info?id=' + ssid, false),
      presence: () => get('/api/maps/' + ref + '/presence'),
      /** A page of the event log after `after` (oldest first): `{data, next_after}`. */
      events: async (after, limit) => (await call('/api/maps/' + ref + '/events?after=' + encodeURIComponent(after) + '&limit=' + limit)).body,
    };
  }

  window.MapintelLiveMapApi = { client, describeError, explainStatus, explainKey, keyKind, ulidAt, ApiError };
})();
