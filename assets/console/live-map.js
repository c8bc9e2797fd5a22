/*
 * The live map of the event console (/console): the map drawn with Cytoscape.js (served by the service
 * from its own node_modules, no CDN). `MapintelLiveMap.create()` returns a map that `load()`s the state
 * through the public REST endpoints with the page's key and answers the id of the newest event the
 * loaded state includes (the reads' `Map-Event-Id`, the earliest of them), from which the stream is
 * then followed; `apply()` applies each stream event to the picture, once (an event at or before the
 * last applied id is skipped). Each event is applied as a full state of what it names, so an event
 * that a later read already included changes nothing for good. Events that arrive while a load is
 * under way wait for it. The REST client, the drawing rules and the labels' level of detail are in
 * live-map-api.js, live-map-style.js and live-map-labels.js.
 */
(() => {
  'use strict';
  const { client, describeError } = window.MapintelLiveMapApi;
  const { STYLE, classLabel, nodeLabel, shortLabel, shortClassOf } = window.MapintelLiveMapStyle;
  const { connectionFacts } = window.MapintelLiveMapEvents;
  const { STATUS, MASS, SIZE, CONNECTION_TYPE } = window.MapintelLiveMapStyle;
  /** Maps with at most this many systems get their classes (one static-info request each) at load. */
  const CLASSES_AT_LOAD = 40;
  const nodeId = (ssid) => 's' + ssid;

  function create(container, detailsEl) {
    const cy = window.cytoscape({
      container,
      style: STYLE,
      elements: [],
      layout: { name: 'preset' },
      minZoom: 0.02,
      maxZoom: 4,
      autoungrabify: true, // the page reads the map: positions come from the API
      boxSelectionEnabled: false,
    });
    let api = null;
    let loading = null;
    let queue = [];
    let selected = null;
    const systems = new Map(); // solar_system_id → System
    const connections = new Map(); // connection id → Connection
    const signatures = new Map(); // solar_system_id → Set of signature ids
    const kills = new Map(); // solar_system_id → kills, newest first
    const statics = new Map(); // solar_system_id → static info (or a promise of it)
    const live = { cy, loads: 0, eventsApplied: 0, lastEventId: null };
    const labels = window.MapintelLiveMapLabels.attach(cy);
    live.labels = labels;

    function refreshNode(ssid) {
      const s = systems.get(ssid);
      const n = cy.getElementById(nodeId(ssid));
      if (!s || n.empty()) return;
      const info = statics.get(ssid);
      const cls = info && !(info instanceof Promise) ? info : null;
      const sigCount = signatures.get(ssid)?.size ?? 0;
      const killCount = kills.get(ssid)?.length ?? 0;
      n.data({
        name: s.name,
        customName: s.custom_name,
        tag: s.tag,
        status: STATUS[s.status] ?? 'clear',
        cls: cls ? shortClassOf(cls.system_class) || cls.class_title : (s.classTitle ?? ''),
        sigs: sigCount,
        kills: killCount,
        label: nodeLabel(s, cls, sigCount, killCount),
        short: shortLabel(s, killCount),
      });
      labels.schedule();
      n.toggleClass('killed', killCount > 0);
      n.position({ x: s.position_x, y: s.position_y });
    }

    function putSystem(s) {
      const ssid = s.solar_system_id;
      const prior = systems.get(ssid);
      systems.set(ssid, { ...prior, ...s });
      if (cy.getElementById(nodeId(ssid)).empty()) {
        cy.add({ group: 'nodes', data: { id: nodeId(ssid), ssid }, position: { x: s.position_x, y: s.position_y } });
        for (const c of connections.values()) if (c.solar_system_source === ssid || c.solar_system_target === ssid) drawConnection(c);
      }
      refreshNode(ssid);
    }

    function dropSystem(ssid) {
      systems.delete(ssid);
      cy.getElementById(nodeId(ssid)).remove(); // its edges go with it; the connections stay known
      if (selected === ssid) showDetails(null);
    }

    function drawConnection(c) {
      const a = cy.getElementById(nodeId(c.solar_system_source));
      const b = cy.getElementById(nodeId(c.solar_system_target));
      const e = cy.getElementById(c.id);
      if (a.empty() || b.empty()) return e.remove();
      const data = {
        mass: MASS[c.mass_status] ?? 'normal',
        size: SIZE[c.ship_size_type] ?? 'large',
        time: c.time_status > 0 ? 'eol' : 'fresh',
        kind: CONNECTION_TYPE[c.type] ?? 'wormhole',
        label: c.wormhole_type ?? '',
        massStatus: c.mass_status,
        shipSizeType: c.ship_size_type,
        timeStatus: c.time_status,
      };
      if (e.empty()) cy.add({ group: 'edges', data: { id: c.id, source: a.id(), target: b.id(), ...data } });
      else e.data(data);
    }

    function putConnection(c) {
      connections.set(c.id, { ...connections.get(c.id), ...c });
      drawConnection(connections.get(c.id));
    }

    function dropConnection(id) {
      connections.delete(id);
      cy.getElementById(id).remove();
    }

    function classesInBackground(ids) {
      const todo = ids.filter((ssid) => !statics.has(ssid));
      let at = 0;
      const worker = async () => {
        while (at < todo.length) await staticInfo(todo[at++]).catch(() => undefined);
      };
      return Promise.all([worker(), worker(), worker()]);
    }

    function staticInfo(ssid) {
      const known = statics.get(ssid);
      if (known) return Promise.resolve(known);
      const pending = api.staticInfo(ssid).then(
        (info) => {
          statics.set(ssid, info);
          refreshNode(ssid);
          return info;
        },
        (err) => {
          statics.delete(ssid);
          throw err;
        },
      );
      statics.set(ssid, pending);
      return pending;
    }

    /**
     * Loads the whole state from REST and draws it; events applied meanwhile wait for it. Resolves to
     * the id to follow the stream from: the earliest `Map-Event-Id` of the reads (every event after it
     * is applied on top, once), or null when the server sends none.
     */
    live.load = (restClient) => {
      api = restClient;
      const run = (async () => {
        // The systems first: every other read is at least as recent, so the events after the systems'
        // id cover whatever the other reads missed.
        const sys = await api.systems();
        const [links, sigs, killRead] = await Promise.all([api.connections(), api.signatures(), api.kills()]);
        const killed = killRead.data;
        const ids = [sys.eventId, links.eventId, killRead.eventId];
        const resumeFrom = ids.some((id) => id === null) ? null : ids.reduce((a, b) => (b < a ? b : a));
        const both = { systems: sys.data, connections: links.data };
        systems.clear();
        connections.clear();
        signatures.clear();
        kills.clear();
        for (const s of sigs) (signatures.get(s.solar_system_id) ?? signatures.set(s.solar_system_id, new Set()).get(s.solar_system_id)).add(s.signature_id);
        for (const k of killed) kills.set(k.solar_system_id, [...k.kills]);
        const first = live.loads === 0;
        cy.batch(() => {
          cy.elements().remove();
          for (const c of both.connections) connections.set(c.id, c);
          for (const s of both.systems) putSystem(s);
        });
        if (first) cy.fit(undefined, 40);
        live.loads += 1;
        container.dataset.loads = String(live.loads);
        if (both.systems.length <= CLASSES_AT_LOAD) void classesInBackground(both.systems.map((s) => s.solar_system_id));
        live.lastEventId = resumeFrom;
        labels.layout();
        if (typeof selected === 'string') showConnection(selected);
        else if (selected !== null) showDetails(systems.has(selected) ? selected : null);
        return resumeFrom;
      })();
      loading = run;
      const settle = () => {
        if (loading !== run) return;
        loading = null;
        const waiting = queue;
        queue = [];
        cy.batch(() => waiting.forEach(live.apply));
      };
      run.then(settle, () => {
        if (loading === run) loading = null;
        queue = [];
      });
      return run;
    };

    /** Applies one event envelope to the picture. */
    live.apply = (e) => {
      if (loading) queue.push(e);
      else if (api) {
        if (live.lastEventId !== null && e.id && e.id <= live.lastEventId) return; // already applied (or loaded)
        if (e.id) live.lastEventId = e.id;
        handle(e);
      }
    };

    function handle(e) {
      const p = e.payload;
      switch (e.type) {
        case 'add_system':
          putSystem({ id: p.system_id, solar_system_id: p.solar_system_id, name: p.name, position_x: p.position_x, position_y: p.position_y, classTitle: p.class });
          // The event names the system; its other fields (status, tag, custom name) come from REST.
          // Taken only if that read includes every event applied so far (else a later event is undone).
          api.system(p.solar_system_id).then(({ data: s, eventId }) => {
            const current = eventId === null || live.lastEventId === null || eventId >= live.lastEventId;
            if (current && systems.has(s.solar_system_id) && s.visible) putSystem(s);
          }, () => undefined);
          // The payload's class title is shown meanwhile; on small maps the class colours it (as at load).
          if (systems.size <= CLASSES_AT_LOAD && !statics.has(p.solar_system_id)) staticInfo(p.solar_system_id).catch(() => undefined);
          break;
        case 'deleted_system':
          dropSystem(p.solar_system_id);
          break;
        case 'system_metadata_changed':
          if (!p.visible) dropSystem(p.solar_system_id);
          else {
            const { changed: _changed, system_id, ...fields } = p;
            putSystem({ ...fields, id: system_id });
          }
          if (selected === p.solar_system_id) showDetails(selected);
          break;
        case 'connection_added':
        case 'connection_updated': {
          const { connection_id, changed: _changed, from_name: _from, to_name: _to, ...fields } = p;
          putConnection({ ...fields, id: connection_id });
          if (selected === connection_id) showConnection(connection_id);
          break;
        }
        case 'connection_removed':
          dropConnection(p.connection_id);
          if (selected === p.connection_id) showDetails(null);
          break;
        case 'signature_added':
        case 'signature_removed': {
          const set = signatures.get(p.solar_system_id) ?? new Set();
          if (e.type === 'signature_added') set.add(p.signature_id);
          else set.delete(p.signature_id);
          signatures.set(p.solar_system_id, set);
          refreshNode(p.solar_system_id);
          if (selected === p.solar_system_id) showDetails(selected);
          break;
        }
        case 'signatures_updated':
          // Counts only: the system's signatures are read again.
          api.signatures(p.solar_system_id).then((list) => {
            signatures.set(p.solar_system_id, new Set(list.map((s) => s.signature_id)));
            refreshNode(p.solar_system_id);
            if (selected === p.solar_system_id) showDetails(selected);
          }, () => undefined);
          break;
        case 'map_kill': {
          const list = kills.get(p.solar_system_id) ?? [];
          if (!list.some((k) => k.killmail_id === p.killmail_id)) {
            list.unshift({ killmail_id: p.killmail_id, kill_time: p.kill_time, total_value: p.value, victim_char_name: p.victim.name, victim_ship_name: p.victim.ship, victim_corp_ticker: p.victim.corporation });
            kills.set(p.solar_system_id, list);
            refreshNode(p.solar_system_id);
            if (selected === p.solar_system_id) showDetails(selected);
          }
          break;
        }
        default:
          return; // ACL events do not change the picture
      }
      live.eventsApplied += 1;
    }

    const el = (tag, text, cls) => {
      const x = document.createElement(tag);
      if (text !== undefined) x.textContent = text;
      if (cls) x.className = cls;
      return x;
    };
    const nameOf = (ssid) => {
      const s = systems.get(ssid);
      return s ? s.custom_name || s.name : String(ssid);
    };
    live.nameOf = (ssid) => (systems.has(ssid) ? nameOf(ssid) : null);

    /** Shows a connection's details beside the map: its ends, type, mass, time status, ship size, wormhole type. */
    function showConnection(id) {
      const c = connections.get(id);
      if (!c) return showDetails(null);
      selected = id;
      cy.elements(':selected').unselect();
      cy.getElementById(id).select();
      detailsEl.replaceChildren();
      detailsEl.hidden = false;
      delete detailsEl.dataset.ssid;
      detailsEl.dataset.connection = id;
      const { KIND, MASS: MASS_TEXT, SIZE: SIZE_TEXT, TIME } = window.MapintelLiveMapEvents;
      detailsEl.append(el('h2', nameOf(c.solar_system_source) + ' ⇄ ' + nameOf(c.solar_system_target)));
      const facts = el('dl');
      const fact = (k, v) => facts.append(el('dt', k), el('dd', v));
      fact('type', KIND[c.type] ?? String(c.type));
      fact('wormhole', c.wormhole_type || (c.type === 0 ? 'unknown' : '—'));
      fact('mass', MASS_TEXT[c.mass_status] ?? String(c.mass_status));
      fact('time', TIME[c.time_status] ?? String(c.time_status));
      fact('ship size', SIZE_TEXT[c.ship_size_type] ?? String(c.ship_size_type));
      if (c.updated_at) fact('updated', c.updated_at.slice(0, 16).replace('T', ' '));
      detailsEl.append(facts, el('p', connectionFacts(c), 'summary'));
    }
    live.showConnection = showConnection;

    /** Shows a system's details beside the map (null hides them). */
    function showDetails(ssid) {
      selected = ssid;
      delete detailsEl.dataset.connection;
      cy.elements(':selected').unselect();
      detailsEl.replaceChildren();
      detailsEl.hidden = ssid === null;
      if (ssid === null) return;
      cy.getElementById(nodeId(ssid)).select();
      const s = systems.get(ssid);
      detailsEl.dataset.ssid = String(ssid);
      detailsEl.append(el('h2', (s.custom_name || s.name) + (s.tag ? ' [' + s.tag + ']' : '')));
      const facts = el('dl');
      const fact = (k, v) => facts.append(el('dt', k), el('dd', v));
      fact('system', s.name + ' (' + ssid + ')');
      fact('status', STATUS[s.status] ?? String(s.status));
      if (s.description) fact('description', s.description);
      const info = statics.get(ssid);
      const staticBox = el('div', 'loading static info…', 'static');
      detailsEl.append(facts, staticBox);
      const drawStatic = (i) => {
        staticBox.replaceChildren();
        const d = el('dl');
        const add = (k, v) => d.append(el('dt', k), el('dd', v));
        add('class', classLabel(i));
        add('region', i.region_name + ' · ' + i.constellation_name);
        add('security', i.security);
        if (i.effect_name) add('effect', i.effect_name + (i.effect_power ? ' (' + i.effect_power + ')' : ''));
        if (i.statics.length) add('statics', i.statics.join(', '));
        staticBox.append(d);
      };
      if (info && !(info instanceof Promise)) drawStatic(info);
      else staticInfo(ssid).then((i) => selected === ssid && drawStatic(i), (err) => selected === ssid && (staticBox.textContent = describeError(err)));

      const sigBox = el('div', undefined, 'sigs');
      sigBox.append(el('h3', 'Signatures (' + (signatures.get(ssid)?.size ?? 0) + ')'));
      detailsEl.append(sigBox);
      api.signatures(ssid).then(
        (list) => {
          if (selected !== ssid) return;
          const ul = el('ul');
          for (const g of list) ul.append(el('li', [g.signature_id, g.group, g.type, g.name].filter(Boolean).join(' · ')));
          sigBox.append(ul);
        },
        (err) => selected === ssid && sigBox.append(el('p', describeError(err))),
      );

      const recent = kills.get(ssid) ?? [];
      const killBox = el('div', undefined, 'kills');
      killBox.append(el('h3', 'Recent kills (' + recent.length + ')'));
      const ul = el('ul');
      for (const k of recent.slice(0, 10)) {
        const isk = k.total_value ? ' · ' + (k.total_value / 1e6).toFixed(1) + 'M ISK' : '';
        ul.append(el('li', k.kill_time.slice(0, 16).replace('T', ' ') + ' · ' + (k.victim_ship_name ?? '?') + ' (' + (k.victim_char_name ?? '?') + ')' + isk));
      }
      killBox.append(ul);
      detailsEl.append(killBox);
    }

    cy.on('tap', 'node', (ev) => showDetails(ev.target.data('ssid')));
    cy.on('tap', 'edge', (ev) => showConnection(ev.target.id()));
    cy.on('tap', (ev) => ev.target === cy && showDetails(null));
    live.showDetails = showDetails;

    /** Systems whose name, custom name or tag contains `text` (case-insensitive), best first, at most `max`. */
    live.find = (text, max = 8) => {
      const q = text.trim().toLowerCase();
      if (!q) return [];
      const hits = [];
      for (const s of systems.values()) {
        const names = [s.name, s.custom_name, s.tag].filter(Boolean).map((x) => x.toLowerCase());
        const rank = names.some((x) => x === q) ? 0 : names.some((x) => x.startsWith(q)) ? 1 : names.some((x) => x.includes(q)) ? 2 : -1;
        if (rank >= 0) hits.push({ rank, ssid: s.solar_system_id, name: s.name, customName: s.custom_name, tag: s.tag });
      }
      return hits.sort((a, b) => a.rank - b.rank || a.name.localeCompare(b.name)).slice(0, max);
    };

    /** Centres the map on a system, zoomed in far enough for its full label, and shows its details. */
    live.zoomTo = (ssid) => {
      const n = cy.getElementById(nodeId(ssid));
      if (n.empty()) return false;
      cy.zoom(Math.max(cy.zoom(), 1.2));
      cy.center(n);
      showDetails(ssid);
      labels.layout();
      return true;
    };

    /** What the picture shows, for tests and for the curious (window.__mapintelLiveMap.snapshot()). */
    live.snapshot = () => ({
      nodes: cy.nodes().map((n) => ({ ...n.data(), x: n.position('x'), y: n.position('y') })),
      edges: cy.edges().map((e) => ({ ...e.data(), source: Number(e.source().data('ssid')), target: Number(e.target().data('ssid')) })),
    });
    return live;
  }

  window.MapintelLiveMap = { create, client };
})();
