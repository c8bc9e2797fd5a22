/**
 * The event console (`GET /console`): a page served by the service itself (no CDN, nothing to build)
 * where a person pastes a map key and watches the map live: the map drawn beside the list of its
 * events. The page's scripts are files of their own under assets/console/ (served by
 * console-assets.ts with Cytoscape.js, the graph library that draws the map): console.js connects
 * and lists, live-map*.js load the map through the REST API and keep it current from the stream,
 * webhooks.js shows the map's webhook subscriptions, their health and attempt log, and their actions.
 */
import { EVENT_TYPES } from '../events/catalog.js';
import { FAVICON_URL } from './favicon.js';
import { CONSOLE_SCRIPTS } from './console-assets.js';

export function consolePage(): string {
  const boxes = EVENT_TYPES.map((t) => `<label><input type="checkbox" name="type" value="${t}" checked> ${t}</label>`).join('\n        ');
  const scripts = CONSOLE_SCRIPTS.map((s) => `<script src="${s}"></script>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mapintel event console</title>
<link rel="icon" href="${FAVICON_URL}" type="image/svg+xml">
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.2rem; color: #1d232a; }
  h1 { font-size: 1.3rem; margin: 0 0 .8rem; }
  form { display: grid; grid-template-columns: 1fr 16rem; gap: .5rem 1rem; max-width: 80rem; }
  form > fieldset, form > div { grid-column: 1 / -1; }
  input[type=text], input[type=password] { font: inherit; padding: .35rem .5rem; width: 100%; box-sizing: border-box; }
  fieldset { display: flex; flex-wrap: wrap; gap: .2rem 1rem; border: 1px solid #ccd; font-size: 13px; }
  button { font: inherit; padding: .35rem .9rem; margin-right: .5rem; }
  #status { font-weight: 600; margin: .8rem 0 .3rem; }
  #status.live { color: #137333; } #status.down { color: #b3261e; }
  #status.error { background: #fce8e6; border: 1px solid #f4b4ae; padding: .5rem .7rem; border-radius: 4px; }
  .main { display: grid; grid-template-columns: minmax(0, 1fr) 24rem; gap: 1rem; align-items: start; }
  #livemap { height: 72vh; min-height: 420px; border: 1px solid #ccd; border-radius: 4px; background: #fbfcfd; }
  .legend { font-size: 12px; color: #556; margin-top: .3rem; }
  .side { max-height: 80vh; overflow: auto; }
  #details { border: 1px solid #ccd; border-radius: 4px; padding: .5rem .8rem; margin-bottom: .8rem; }
  #details h2 { font-size: 1.05rem; margin: .2rem 0 .4rem; } #details h3 { font-size: .95rem; margin: .6rem 0 .2rem; }
  #details dl { display: grid; grid-template-columns: 6rem 1fr; margin: 0; font-size: 13px; } #details dd { margin: 0; }
  #details ul { margin: 0; padding-left: 1.1rem; font-size: 13px; }
  #events { list-style: none; padding: 0; margin: 0; }
  #events li { border-top: 1px solid #e3e6ea; padding: .4rem 0; }
  #events code { font-size: 12px; white-space: pre-wrap; word-break: break-all; display: block; color: #444; }
  .type { font-weight: 600; } .meta { color: #667; font-size: 12px; }
  #webhooks { margin-top: 1.2rem; } #webhooks h2 { font-size: 1.1rem; margin: .2rem 0 .5rem; }
  #webhooks table { border-collapse: collapse; font-size: 13px; margin: .4rem 0 .8rem; width: 100%; }
  #webhooks th, #webhooks td { border-top: 1px solid #e3e6ea; padding: .25rem .4rem; text-align: left; vertical-align: top; }
  #webhooks td.url, #webhooks td.event { word-break: break-all; } #webhooks .ok { color: #137333; } #webhooks .bad { color: #b3261e; }
  #webhooks .inputs { display: flex; gap: 1rem; flex-wrap: wrap; } #webhooks .inputs label { flex: 1 1 18rem; }
  #wh-status.error { background: #fce8e6; border: 1px solid #f4b4ae; padding: .4rem .6rem; border-radius: 4px; }
  @media (max-width: 900px) { .main { grid-template-columns: 1fr; } form { grid-template-columns: 1fr; } }
</style>
</head>
<body>
<h1>mapintel event console</h1>
<form id="form">
  <label>Map API key <input type="password" id="key" autocomplete="off" placeholder="mik_…" required></label>
  <label>Map (id or slug) <input type="text" id="map" value="demo" required></label>
  <fieldset><legend>Event types shown in the list (the map applies them all)</legend>
        ${boxes}
  </fieldset>
  <div><button type="submit" id="connect">Connect</button><button type="button" id="disconnect">Disconnect</button><button type="button" id="reconnect">Reconnect from last id</button><button type="button" id="fit">Fit map</button></div>
</form>
<div id="status" class="down">not connected</div>
<div class="meta">last event id: <span id="last">none</span> · events: <span id="count">0</span> · <span id="mapstate">map not loaded</span></div>
<div class="main">
  <div>
    <div id="livemap" role="img" aria-label="the live map"></div>
    <div class="legend">Systems: filled by status (home green, friendly blue, warning yellow, target orange, dangerous red), ringed by class, a red halo and ☠ count for recent kills.
      Connections: grey, orange (half mass) or red (critical); dashed at end of life; thicker for larger ships; dotted for gates. Drag to pan, wheel to zoom, click a system for details.</div>
  </div>
  <div class="side">
    <section id="details" hidden></section>
    <ul id="events"></ul>
  </div>
</div>
<section id="webhooks">
  <h2>Webhooks</h2>
  <div class="inputs">
    <label>Event id to redeliver <input type="text" id="wh-event" placeholder="01J…"></label>
    <label>Recover events since (RFC 3339) <input type="text" id="wh-since" placeholder="2026-11-28T09:00:00Z"></label>
  </div>
  <div><button type="button" id="wh-load">Load webhooks</button> <span id="wh-status"></span></div>
  <table>
    <thead><tr><th>URL</th><th>State</th><th>Attempts (1 h)</th><th>Succeeded</th><th>Failed</th><th>Latency p50 / p99</th><th>Consecutive failures</th><th>Last error</th><th></th></tr></thead>
    <tbody id="wh-subs"></tbody>
  </table>
  <h3 id="wh-log-title">Attempt log</h3>
  <table>
    <thead><tr><th>Attempted at</th><th>Type</th><th>Event</th><th>Sequence</th><th>Attempt</th><th>Outcome</th><th>Status</th><th>Duration</th><th>Error</th></tr></thead>
    <tbody id="wh-attempts"></tbody>
  </table>
</section>
${scripts}
</body>
</html>
`;
}
