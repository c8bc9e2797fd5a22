/*
 * The console's webhooks view: the map's subscriptions with their health (GET …/webhooks and
 * …/webhooks/{id}/stats), one subscription's attempt log (…/deliveries), and its ping, redeliver and
 * recover actions, all through the public API with the page's map key. Scripts only from files (no
 * inline script or handler), so the page keeps to a `script-src 'self'` policy.
 */
(() => {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const { describeError, ApiError } = window.MapintelLiveMapApi;
  let selected = null; // the subscription whose attempts are shown

  function base() {
    return '/api/maps/' + encodeURIComponent($('map').value.trim()) + '/webhooks';
  }

  async function call(method, path, body) {
    const headers = { authorization: 'Bearer ' + $('key').value.trim() };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(path, { method, headers, cache: 'no-cache', body: body === undefined ? undefined : JSON.stringify(body) });
    let json = null;
    try {
      json = await res.json();
    } catch {
      // no JSON body
    }
    if (!res.ok) throw new ApiError(res.status, json && json.code, json && json.error, res.headers.get('retry-after'));
    return json;
  }

  function say(text, isError) {
    $('wh-status').textContent = text;
    $('wh-status').className = isError ? 'error' : '';
  }

  function cell(row, text, cls) {
    const td = document.createElement('td');
    td.textContent = text === null || text === undefined ? '–' : String(text);
    if (cls) td.className = cls;
    row.append(td);
    return td;
  }

  function button(label, action, id) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.dataset.action = action;
    b.dataset.id = id;
    return b;
  }

  /** Lists the subscriptions with their health; `quiet` after an action, whose outcome the status line keeps. */
  async function load(quiet) {
    if (!quiet) say('loading webhooks…', false);
    try {
      const subs = (await call('GET', base())).data;
      const body = $('wh-subs');
      body.replaceChildren();
      for (const s of subs) {
        const stats = (await call('GET', base() + '/' + s.id + '/stats?window=1h')).data;
        const tr = document.createElement('tr');
        tr.dataset.id = s.id;
        cell(tr, s.url, 'url');
        cell(tr, s.active ? 'active' : 'inactive', s.active ? 'ok' : 'bad');
        cell(tr, stats.attempts, 'attempts');
        cell(tr, stats.succeeded, 'succeeded');
        cell(tr, stats.failed, 'failed');
        cell(tr, stats.latency_ms.p50 === null ? null : stats.latency_ms.p50 + ' / ' + stats.latency_ms.p99 + ' ms', 'latency');
        cell(tr, s.consecutive_failures, 'failures');
        cell(tr, stats.last_error ? stats.last_error + ' (' + stats.last_error_at + ')' : null, 'last-error');
        const actions = cell(tr, '', 'actions');
        actions.append(button('Attempts', 'attempts', s.id), button('Ping', 'ping', s.id), button('Redeliver', 'redeliver', s.id), button('Recover', 'recover', s.id));
        body.append(tr);
      }
      if (!quiet) say(subs.length + ' subscription' + (subs.length === 1 ? '' : 's') + '; health over the last hour', false);
      if (selected) await attempts(selected);
    } catch (err) {
      say(describeError(err), true);
    }
  }

  async function attempts(id) {
    selected = id;
    const page = await call('GET', base() + '/' + id + '/deliveries?limit=50');
    const body = $('wh-attempts');
    body.replaceChildren();
    for (const a of page.data) {
      const tr = document.createElement('tr');
      tr.dataset.eventId = a.event_id;
      cell(tr, a.attempted_at);
      cell(tr, a.event_type, 'type');
      cell(tr, a.event_id, 'event');
      cell(tr, a.sequence, 'sequence');
      cell(tr, a.attempt);
      cell(tr, a.outcome + (a.recovered ? ' (recovered)' : ''), a.outcome === 'success' ? 'ok' : 'bad');
      cell(tr, a.status);
      cell(tr, a.duration_ms + ' ms');
      cell(tr, a.error);
      body.append(tr);
    }
    $('wh-log-title').textContent = 'Attempt log of ' + id + ' (newest first)';
  }

  async function act(action, id) {
    try {
      if (action === 'attempts') return await attempts(id);
      if (action === 'ping') {
        const r = (await call('POST', base() + '/' + id + '/ping')).data;
        say('ping: ' + r.outcome + (r.status ? ' (' + r.status + ')' : '') + (r.error ? ': ' + r.error : '') + ' in ' + r.duration_ms + ' ms', r.outcome !== 'success');
      } else if (action === 'redeliver') {
        const eventId = $('wh-event').value.trim();
        if (!eventId) return say('Enter the id of the event to redeliver.', true);
        const r = (await call('POST', base() + '/' + id + '/redeliver', { event_id: eventId })).data;
        say('redeliver: ' + r.event_type + ' ' + r.event_id + ' queued', false);
      } else if (action === 'recover') {
        const since = $('wh-since').value.trim();
        if (!since) return say('Enter the time to recover from (RFC 3339, e.g. 2026-11-28T09:00:00Z).', true);
        const r = (await call('POST', base() + '/' + id + '/recover', { since })).data;
        say('recover: ' + r.events + ' event' + (r.events === 1 ? '' : 's') + ' queued', false);
      }
      await load(true);
    } catch (err) {
      say(action + ': ' + describeError(err), true);
    }
  }

  $('wh-load').addEventListener('click', () => void load(false));
  $('wh-subs').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-action]');
    if (b) void act(b.dataset.action, b.dataset.id);
  });
})();
