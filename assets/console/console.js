/*
 * The event console's connection (/console). A connect reads the map first (live-map.js: the map
 * reads answer with `Map-Event-Id`, the newest event their state includes), shows the last events of
 * the map's event log up to that id, then follows the stream from that id (`last_event_id`): every
 * later event, once, with no gap between the read and the stream. The stream is the browser's
 * EventSource with `?token=` (EventSource cannot send headers); after a dropped connection the page
 * opens it again itself from the last applied id (the browser's own retry would repeat the URL's
 * `last_event_id`, which wins over its `Last-Event-ID`), and on `event: reset` it reads the map again
 * and follows from the new id. The header shows who is watching (`GET …/presence`, then the
 * stream's `presence_changed` frames). Events read as sentences (live-map-events.js).
 */
(() => {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const { client, describeError, explainStatus, ulidAt } = window.MapintelLiveMapApi;
  const { describeEvent } = window.MapintelLiveMapEvents;
  const live = window.MapintelLiveMap.create($('livemap'), $('details'));
  window.__mapintelLiveMap = live;
  /** How many past events are shown on connect, and how far back the log is searched for them. */
  const RECENT = 20;
  const RECENT_WINDOWS_H = [1, 24, 24 * 7];
  let source = null;
  let lastId = null;
  let count = 0;
  let generation = 0;
  let loadedFor = null; // key and map the picture was loaded for
  const listed = new Set(); // event ids in the list

  const status = (text, state) => {
    $('status').textContent = text;
    $('status').className = state;
  };
  const shown = (type) => {
    const box = document.querySelector('input[name=type][value="' + type + '"]');
    return !box || box.checked;
  };

  function showPresence(p) {
    const el = $('presence');
    if (!p) {
      el.textContent = '';
      el.hidden = true;
      return;
    }
    const who = (p.keys || []).map((k) => (k.name ?? 'an unnamed key') + (k.connections > 1 ? ' ×' + k.connections : '')).join(', ');
    el.textContent = 'watching: ' + p.connections + (who ? ' — ' + who : '');
    el.dataset.connections = String(p.connections);
    el.hidden = false;
  }

  /** Reads the map; resolves to the id to follow the stream from (null without the header), or undefined if it failed. */
  async function reload(api, gen, what) {
    $('mapstate').textContent = 'loading the map…';
    try {
      const from = await live.load(api);
      if (gen !== generation) return undefined;
      loadedFor = what;
      $('mapstate').textContent = 'map loaded (' + live.cy.nodes().length + ' systems, ' + live.cy.edges().length + ' connections)';
      return from;
    } catch (err) {
      if (gen !== generation) return undefined;
      loadedFor = null;
      $('mapstate').textContent = 'map not loaded';
      status(describeError(err, api.key), 'down error');
      return undefined;
    }
  }

  /** The last RECENT events of the log up to `upTo` (the loaded state's id), oldest first. */
  async function recentEvents(api, upTo) {
    for (const hours of RECENT_WINDOWS_H) {
      let after = ulidAt(Date.now() - hours * 3_600_000);
      let tail = [];
      for (let page = 0; page < 5 && after; page++) {
        const res = await api.events(after, 1000);
        tail = tail.concat(res.data.filter((e) => !upTo || e.id <= upTo)).slice(-RECENT);
        after = res.next_after;
      }
      if (tail.length >= RECENT || hours === RECENT_WINDOWS_H[RECENT_WINDOWS_H.length - 1]) return tail;
    }
    return [];
  }

  /** After the browser gave up on the stream (it does for any answer but 200): why, from a HEAD of the same URL. */
  async function explainClosed(url, gen, key) {
    let text = 'closed (check the key, the map and that the stream is switched on)';
    try {
      const res = await fetch(url, { method: 'HEAD', cache: 'no-store' });
      if (!res.ok) text = explainStatus(res.status, null, res.headers.get('retry-after'), key);
    } catch {
      // the server is unreachable: the general sentence stands
    }
    if (gen === generation) status(text, 'down error');
  }

  /** Connects: reads the map unless it is loaded for this key and map and `resumeFrom` is given, then follows. */
  async function open(resumeFrom) {
    const gen = ++generation;
    if (source) source.close();
    source = null;
    const key = $('key').value.trim();
    const mapRef = $('map').value.trim();
    const what = key + '\n' + mapRef;
    const api = client(key, mapRef);
    status('connecting…', 'down');
    let from = resumeFrom;
    if (!resumeFrom || loadedFor !== what) {
      showPresence(null);
      from = await reload(api, gen, what);
      if (from === undefined) return;
      $('last').textContent = from ?? 'none';
      try {
        const past = await recentEvents(api, from);
        if (gen !== generation) return;
        for (const e of past) add(e, true);
      } catch {
        // the list starts empty: the map is loaded all the same
      }
    }
    follow(api, gen, from, key, mapRef, 0);
  }

  function follow(api, gen, from, key, mapRef, attempt) {
    const params = new URLSearchParams({ token: key });
    if (from) params.set('last_event_id', from);
    const url = '/api/maps/' + encodeURIComponent(mapRef) + '/events/stream?' + params;
    const es = new EventSource(url);
    source = es;
    let opened = false;
    es.addEventListener('connected', (m) => {
      const info = JSON.parse(m.data);
      opened = true;
      attempt = 0;
      status('live: map ' + info.map_id, 'live');
      api.presence().then((p) => gen === generation && showPresence(p), () => undefined);
    });
    es.addEventListener('presence_changed', (m) => gen === generation && showPresence(JSON.parse(m.data)));
    es.addEventListener('reset', async (m) => {
      // The history after the id is gone: the map is read again and followed from the new id.
      es.close();
      add({ type: 'reset', id: '', ts: new Date().toISOString(), payload: JSON.parse(m.data) });
      const next = await reload(api, gen, key + '\n' + mapRef);
      if (next !== undefined && gen === generation) follow(api, gen, next, key, mapRef, 0);
    });
    es.onmessage = (m) => {
      const e = JSON.parse(m.data);
      if (live.lastEventId !== null && e.id <= live.lastEventId) return; // already applied
      lastId = e.id;
      $('last').textContent = lastId;
      $('count').textContent = String(++count);
      live.apply(e);
      if (shown(e.type)) add(e);
    };
    es.onerror = () => {
      if (gen !== generation || source !== es) return;
      if (!opened && es.readyState === EventSource.CLOSED) return void explainClosed(url, gen, key);
      // Dropped: opened again from the last applied id, with backoff.
      es.close();
      status('reconnecting…', 'down');
      const delay = Math.min(10_000, 500 * 2 ** attempt);
      setTimeout(() => gen === generation && follow(api, gen, live.lastEventId ?? from, key, mapRef, attempt + 1), delay);
    };
  }

  function add(e, past = false) {
    if (e.id && listed.has(e.id)) return;
    if (e.id) listed.add(e.id);
    const li = document.createElement('li');
    li.dataset.id = e.id;
    li.dataset.type = e.type;
    if (past) li.className = 'past';
    const text = document.createElement('div');
    text.className = 'sentence';
    text.textContent = describeEvent(e, live.nameOf);
    const meta = document.createElement('div');
    meta.className = 'meta';
    meta.textContent = (e.ts || '').slice(0, 19).replace('T', ' ') + ' UTC · ' + e.type + (e.id ? ' · ' + e.id : '');
    const raw = document.createElement('details');
    const summary = document.createElement('summary');
    summary.textContent = 'payload';
    const body = document.createElement('code');
    body.textContent = JSON.stringify(e.payload);
    raw.append(summary, body);
    li.append(text, meta, raw);
    $('events').prepend(li);
  }

  function showResults() {
    const ul = $('search-results');
    ul.replaceChildren();
    for (const hit of live.find($('search').value)) {
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.ssid = String(hit.ssid);
      b.textContent = (hit.tag ? hit.tag + ' · ' : '') + (hit.customName ? hit.customName + ' (' + hit.name + ')' : hit.name);
      b.addEventListener('click', () => zoomTo(hit.ssid));
      const li = document.createElement('li');
      li.append(b);
      ul.append(li);
    }
    if (!ul.children.length && $('search').value.trim()) ul.append(Object.assign(document.createElement('li'), { textContent: 'no system of the map matches', className: 'none' }));
  }
  function zoomTo(ssid) {
    live.zoomTo(ssid);
    $('search-results').replaceChildren();
  }
  $('search').addEventListener('input', showResults);
  $('search').addEventListener('keydown', (ev) => {
    if (ev.key !== 'Enter') return;
    ev.preventDefault();
    const first = live.find($('search').value, 1)[0];
    if (first) zoomTo(first.ssid);
  });

  $('form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    void open(null);
  });
  $('disconnect').addEventListener('click', () => {
    generation++;
    if (source) source.close();
    source = null;
    showPresence(null);
    status('disconnected', 'down');
  });
  $('reconnect').addEventListener('click', () => void open(live.lastEventId ?? lastId));
  $('fit').addEventListener('click', () => live.cy.fit(undefined, 40));
})();
