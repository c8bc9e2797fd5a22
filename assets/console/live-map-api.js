/*
 * The live map's REST client: the public endpoints the map is loaded from, with the page's map key in
 * the Authorization header (the static information needs none), and errors as a person reads them.
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

  /** A clear sentence for a refused request or stream (by status; the server's message when it sent one). */
  function explainStatus(status, detail, retryAfter) {
    const said = detail ? ': ' + detail : '';
    switch (status) {
      case 401:
        return 'The map key was refused (401' + said + '). Check the key and press Connect.';
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

  function describeError(err) {
    if (err instanceof ApiError) return explainStatus(err.status, err.message, err.retryAfter);
    return 'Could not reach the server (' + (err && err.message ? err.message : String(err)) + ').';
  }

  /** A client for one map (UUID or slug) with one map key. */
  function client(key, mapRef) {
    const ref = encodeURIComponent(mapRef);
    const selector = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(mapRef) ? 'map_id=' + ref : 'slug=' + ref;
    async function get(path, withKey = true) {
      const res = await fetch(path, { headers: withKey ? { authorization: 'Bearer ' + key } : {}, cache: 'no-cache' });
      if (!res.ok) {
        let body = null;
        try {
          body = await res.json();
        } catch {
          // no JSON body
        }
        throw new ApiError(res.status, body && body.code, body && body.error, res.headers.get('retry-after'));
      }
      return (await res.json()).data;
    }
    return {
      systems: () => get('/api/maps/' + ref + '/systems'),
      system: (ssid) => get('/api/maps/' + ref + '/systems/' + ssid),
      signatures: (ssid) => get('/api/maps/' + ref + '/signatures' + (ssid === undefined ? '' : '?solar_system_id=' + ssid)),
      kills: () => get('/api/map/systems-kills?' + selector),
      staticInfo: (ssid) => get('/api/common/system-static-info?id=' + ssid, false),
    };
  }

  window.MapintelLiveMapApi = { client, describeError, explainStatus, ApiError };
})();
