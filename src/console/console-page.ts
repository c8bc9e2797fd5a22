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
import { CONSOLE_SCRIPTS, CONSOLE_STYLES } from './console-assets.js';

/** The legend at the top of the column beside the map (a <details>, open: a click folds it away). Colours are console.css's. */
const LEGEND = `<details id="legend" class="legend" open><summary>Legend</summary>
        <div class="group"><b>System fill: status</b>
          ${['clear', 'home', 'friendly', 'looking_for', 'warning', 'target', 'dangerous'].map((k) => `<span class="item"><i class="sw st-${k}"></i>${k.replace('_', ' ')}</span>`).join('')}</div>
        <div class="group"><b>System ring: class</b>
          ${['C1', 'C3', 'C5', 'C6', 'HS', 'LS', 'NS', 'Thera'].map((k) => `<span class="item"><i class="sw ring cl-${k}"></i>${k}</span>`).join('')}</div>
        <div class="group"><b>Connection: mass</b>
          <span class="item"><i class="ln m-normal"></i>normal</span><span class="item"><i class="ln m-half"></i>half</span><span class="item"><i class="ln m-critical"></i>critical</span></div>
        <div class="group"><b>Connection: kind</b>
          <span class="item"><i class="ln eol"></i>end of life (dashed)</span><span class="item"><i class="ln gate"></i>stargate, jump bridge (dotted)</span><span class="item"><i class="ln thick"></i>thicker: larger ships</span></div>
        <div class="group"><span class="item"><i class="sw killed"></i>☠ N: kills in the last 24 h</span></div>
      </details>`;

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
<link rel="stylesheet" href="${CONSOLE_STYLES}" id="__________cytoscape_stylesheet">
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
<div class="header"><div id="status" class="down">not connected</div><div id="presence" hidden></div></div>
<div class="meta">last event id: <span id="last">none</span> · events: <span id="count">0</span> · <span id="mapstate">map not loaded</span></div>
<div class="main">
  <div>
    <div class="find"><label>Find a system <input type="search" id="search" placeholder="name, custom name or tag" autocomplete="off"></label><ul id="search-results"></ul></div>
    <div id="livemap" role="img" aria-label="the live map"></div>
    <div class="hint">Drag to pan, wheel to zoom, click a system or a connection for its details. Zoomed out, systems are labelled by name; the labels that would overlap come back as you zoom in.</div>
  </div>
  <div class="side">
    ${LEGEND}
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
