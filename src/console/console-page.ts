/**
 * The event console (`GET /console`): a page served by the service itself (no CDN, nothing to build)
 * where a person pastes a map key, picks event types and watches the map's events live. It uses the
 * browser's EventSource with `?token=` (EventSource cannot send headers), which resumes after a
 * dropped connection with `Last-Event-ID` on its own; "Reconnect" resumes from the last id shown.
 */
import { EVENT_TYPES } from '../events/catalog.js';
import { FAVICON_URL } from './favicon.js';

export function consolePage(): string {
  const boxes = EVENT_TYPES.map((t) => `<label><input type="checkbox" name="type" value="${t}" checked> ${t}</label>`).join('\n        ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mapintel event console</title>
<link rel="icon" href="${FAVICON_URL}" type="image/svg+xml">
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d232a; }
  h1 { font-size: 1.3rem; margin: 0 0 1rem; }
  form { display: grid; gap: .6rem; max-width: 60rem; }
  input[type=text], input[type=password] { font: inherit; padding: .35rem .5rem; width: 100%; box-sizing: border-box; }
  fieldset { display: flex; flex-wrap: wrap; gap: .3rem 1rem; border: 1px solid #ccd; }
  button { font: inherit; padding: .35rem .9rem; margin-right: .5rem; }
  #status { font-weight: 600; margin: 1rem 0 .5rem; }
  #status.live { color: #137333; } #status.down { color: #b3261e; }
  #events { list-style: none; padding: 0; margin: 0; max-width: 60rem; }
  #events li { border-top: 1px solid #e3e6ea; padding: .4rem 0; }
  #events code { font-size: 12px; white-space: pre-wrap; word-break: break-all; display: block; color: #444; }
  .type { font-weight: 600; } .meta { color: #667; font-size: 12px; }
</style>
</head>
<body>
<h1>mapintel event console</h1>
<form id="form">
  <label>Map API key <input type="password" id="key" autocomplete="off" placeholder="mik_…" required></label>
  <label>Map (id or slug) <input type="text" id="map" value="demo" required></label>
  <fieldset><legend>Event types</legend>
        ${boxes}
  </fieldset>
  <div><button type="submit" id="connect">Connect</button><button type="button" id="disconnect">Disconnect</button><button type="button" id="reconnect">Reconnect from last id</button></div>
</form>
<div id="status" class="down">not connected</div>
<div class="meta">last event id: <span id="last">none</span> · events: <span id="count">0</span></div>
<ul id="events"></ul>
<script>
(() => {
  const $ = (id) => document.getElementById(id);
  let source = null;
  let lastId = null;
  let count = 0;
  const status = (text, live) => { $('status').textContent = text; $('status').className = live ? 'live' : 'down'; };
  function open(resumeFrom) {
    if (source) source.close();
    const types = [...document.querySelectorAll('input[name=type]:checked')].map((b) => b.value);
    const params = new URLSearchParams({ token: $('key').value.trim() });
    if (types.length && types.length < ${EVENT_TYPES.length}) params.set('events', types.join(','));
    if (resumeFrom) params.set('last_event_id', resumeFrom);
    const map = encodeURIComponent($('map').value.trim());
    status('connecting…', false);
    source = new EventSource('/api/maps/' + map + '/events/stream?' + params);
    source.addEventListener('connected', (m) => {
      const info = JSON.parse(m.data);
      status('live: map ' + info.map_id, true);
    });
    source.addEventListener('reset', (m) => {
      const info = JSON.parse(m.data);
      add({ type: 'reset', id: '', ts: new Date().toISOString(), payload: info });
    });
    source.onmessage = (m) => {
      const e = JSON.parse(m.data);
      lastId = e.id;
      $('last').textContent = lastId;
      $('count').textContent = String(++count);
      add(e);
    };
    source.onerror = () => {
      if (source && source.readyState === EventSource.CLOSED) status('closed (check the key, the map and that the stream is switched on)', false);
      else status('reconnecting…', false);
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
  $('form').addEventListener('submit', (ev) => { ev.preventDefault(); open(null); });
  $('disconnect').addEventListener('click', () => { if (source) source.close(); source = null; status('disconnected', false); });
  $('reconnect').addEventListener('click', () => open(lastId));
})();
</script>
</body>
</html>
`;
}
