/*
 * The live map's labels at every zoom (level of detail): zoomed in, each system has its two-line label
 * (name, then class, signatures and kills) at its drawn size; zoomed out, where those would shrink
 * below reading size, each system is labelled with its name alone at a readable size (READABLE_PX
 * on screen whatever the zoom), and where two such labels would overlap only the one that matters
 * more is shown (the selected system, then kills, a status, a tag, more connections), the other
 * coming back as the zoom makes room. Nodes carry `label` (full) and `short` (name) in their data;
 * the style draws `shown`.
 */
(() => {
  'use strict';
  /** The smallest font size (CSS pixels on screen) of a label. */
  const READABLE_PX = 11;
  /** The zoom from which the full labels (12 model units) are drawn at least READABLE_PX * 0.9. */
  const FULL_FROM = 0.85;

  function priority(n) {
    let p = 0;
    if (n.selected()) p += 1000;
    if (n.data('kills') > 0) p += 100;
    if (n.data('status') && n.data('status') !== 'clear') p += 50;
    if (n.data('tag')) p += 40;
    return p + Math.min(n.degree(false), 20);
  }

  const overlaps = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;

  /** Keeps the labels of `cy` readable; returns `schedule()` (call after the picture changed). */
  function attach(cy) {
    const state = { runs: 0, full: true };

    function layout() {
      clearTimeout(timer);
      const z = cy.zoom();
      const full = z >= FULL_FROM;
      const nodes = cy.nodes();
      cy.batch(() => {
        nodes.forEach((n) => n.data('shown', full ? n.data('label') : n.data('short')));
        if (full) nodes.removeStyle('font-size text-max-width text-wrap text-background-opacity');
        else
          nodes.style({
            'font-size': READABLE_PX / z,
            'text-max-width': 170 / z,
            'text-wrap': 'ellipsis',
            'text-background-opacity': 0.75,
          });
      });
      // Greedy: the labels that matter more take their place first; one that would overlap is left out.
      const pad = 2 / z;
      const kept = [];
      const order = nodes.toArray().sort((a, b) => priority(b) - priority(a) || String(a.data('short')).localeCompare(String(b.data('short'))));
      cy.batch(() => {
        for (const n of order) {
          if (!n.data('shown')) continue;
          const bb = n.boundingBox({ includeNodes: false, includeEdges: false, includeLabels: true });
          const box = { x1: bb.x1 - pad, x2: bb.x2 + pad, y1: bb.y1 - pad, y2: bb.y2 + pad };
          if (kept.some((k) => overlaps(k, box))) n.data('shown', '');
          else kept.push(box);
        }
      });
      state.runs += 1;
      state.full = full;
    }

    /** Lays the labels out once the picture has been still for a moment (a wheel zoom fires many zoom events). */
    let timer = null;
    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(layout, 80);
    }

    cy.on('zoom', schedule);
    cy.on('add remove', 'node', schedule);
    /** The labels as drawn: text, box and font size on screen (CSS pixels of the map's container). */
    state.rendered = () =>
      cy.nodes().map((n) => {
        const bb = n.renderedBoundingBox({ includeNodes: false, includeEdges: false, includeLabels: true });
        return { ssid: n.data('ssid'), text: n.data('shown') || '', fontPx: n.numericStyle('font-size') * cy.zoom(), x1: bb.x1, x2: bb.x2, y1: bb.y1, y2: bb.y2 };
      });
    state.schedule = schedule;
    state.layout = layout;
    return state;
  }

  window.MapintelLiveMapLabels = { attach, READABLE_PX };
})();
