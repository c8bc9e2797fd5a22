/*
 * The event console's connection (/console): the browser's EventSource with `?token=` (EventSource
 * cannot send headers), which resumes after a dropped connection with `Last-Event-ID` on its own;
 * "Reconnect from last id" resumes with `last_event_id`. The stream carries every event type: the live
 * map needs them all, the checkboxes choose what the list shows. The map loads from REST once the
 * stream is open (events that arrive meanwhile wait for the load), and again on `event: reset`.
 */
(() => {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const { client, describeError, explainStatus } = window.MapintelLiveMapApi;
  const live = window.MapintelLiveMap.create($('livemap'), $('details'));
  window.__mapintelLiveMap = live;
  let source = null;
  let lastId = null;
  let count = 0;
  let generation = 0;
  let loadedFor = null; // key and map the picture was loaded for

  const status = (text, state) => {
    $('status').textContent = text;
    $('status').className = state;
  };
  const shown = (type) => {
    const box = document.querySelector('input[name=type][value="' + type + '"]');
    return !box || box.checked;
  };

  async function reload(api, gen, what) {
    loadedFor = what;
    $('mapstate').textContent = 'loading the map…';
    try {
      await live.load(api);
      if (gen === generation) $('mapstate').textContent = 'map loaded (' + live.cy.nodes().length + ' systems, ' + live.cy.edges().length + ' connections)';
    } catch (err) {
      if (gen !== generation) return;
      loadedFor = null;
      $('mapstate').textContent = 'map not loaded';
      status(describeError(err), 'down error');
      if (source) source.close();
      source = null;
    }
  }

  /** After the browser gave up on the stream (it does for any answer but 200): why, from a HEAD of the same URL. */
  async function explainClosed(url, gen) {
    let text = 'closed (check the key, the map and that the stream is switched on)';
    try {
      const res = await fetch(url, { method: 'HEAD', cache: 'no-store' });
      if (!res.ok) text = explainStatus(res.status, null, res.headers.get('retry-after'));
    } catch {
      // the server is unreachable: the general sentence stands
    }
    if (gen === generation) status(text, 'down error');
  }

  function open(resumeFrom) {
    const gen = ++generation;
    if (source) source.close();
    const key = $('key').value.trim();
    const mapRef = $('map').value.trim();
    const what = key + '\n' + mapRef;
    const api = client(key, mapRef);
    const params = new URLSearchParams({ token: key });
    if (resumeFrom) params.set('last_event_id', resumeFrom);
    const url = '/api/maps/' + encodeURIComponent(mapRef) + '/events/stream?' + params;
    status('connecting…', 'down');
    source = new EventSource(url);
    let first = true;
    source.addEventListener('connected', (m) => {
      const info = JSON.parse(m.data);
      status('live: map ' + info.map_id, 'live');
      // A fresh connect (or another key or map) loads the picture; a resume keeps it and catches up,
      // and so does the browser's own reconnect (with Last-Event-ID).
      if (first && (!resumeFrom || loadedFor !== what)) void reload(api, gen, what);
      first = false;
    });
    source.addEventListener('reset', (m) => {
      add({ type: 'reset', id: '', ts: new Date().toISOString(), payload: JSON.parse(m.data) });
      // The history after the last id is gone: the state is read again.
      void reload(api, gen, what);
    });
    source.onmessage = (m) => {
      const e = JSON.parse(m.data);
      lastId = e.id;
      $('last').textContent = lastId;
      $('count').textContent = String(++count);
      live.apply(e);
      if (shown(e.type)) add(e);
    };
    source.onerror = () => {
      if (gen !== generation) return;
      if (source && source.readyState === EventSource.CLOSED) void explainClosed(url, gen);
      else status('reconnecting…', 'down');
    };
  }

  function add(e) {
    const li = document.createElement('li');
    li.dataset.id = e.id;
    li.dataset.type = e.type;
    const head = document.createElement('div');
    head.innerHTML = '<span class="type"></span> <span class="meta"></span>';
    head.firstChild.textContent = e.type;
    head.lastChild.textContent = e.id + ' · ' + e.ts;
    const body = document.createElement('code');
    body.textContent = JSON.stringify(e.payload);
    li.append(head, body);
    $('events').prepend(li);
  }

  $('form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    open(null);
  });
  $('disconnect').addEventListener('click', () => {
    generation++;
    if (source) source.close();
    source = null;
    status('disconnected', 'down');
  });
  $('reconnect').addEventListener('click', () => open(lastId));
  $('fit').addEventListener('click', () => live.cy.fit(undefined, 40));
})();
