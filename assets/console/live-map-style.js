/*
 * How the live map draws (a Cytoscape.js stylesheet) and labels: systems filled by status and ringed
 * by class, a red halo and a count where kills were recent; connections coloured by mass status,
 * dashed at end of life, as thick as the ships they pass. The values are those of decisions §3.
 */
(() => {
  'use strict';
  const STATUS = ['clear', 'home', 'friendly', 'looking_for', 'warning', 'target', 'dangerous'];
  const MASS = ['normal', 'half', 'critical'];
  const SIZE = ['small', 'medium', 'large', 'freighter', 'capital'];
  const CONNECTION_TYPE = ['wormhole', 'stargate', 'jump_bridge'];

  const STATUS_FILL = { clear: '#eef1f4', home: '#b9e8c0', friendly: '#bcd7f7', looking_for: '#c6eef2', warning: '#f8e39a', target: '#f6c2ae', dangerous: '#f09a94' };
  const CLASS_RING = {
    C1: '#4fc3f7', C2: '#29b6f6', C3: '#0288d1', C4: '#7e57c2', C5: '#8e24aa', C6: '#c2185b',
    HS: '#2e7d32', LS: '#ef6c00', NS: '#c62828', Thera: '#fbc02d', C13: '#6d4c41', Drifter: '#37474f', Pochven: '#b71c1c', Zarzakh: '#455a64', Abyssal: '#263238',
  };
  const MASS_COLOUR = { normal: '#5b6b7c', half: '#e39b2d', critical: '#d0352b' };
  const SIZE_WIDTH = { small: 1.5, medium: 2.5, large: 4, freighter: 5.5, capital: 7 };

  /** A short class name from `system_class` (decisions §3). */
  function shortClassOf(c) {
    if (c >= 1 && c <= 6) return 'C' + c;
    if (c === 7) return 'HS';
    if (c === 8) return 'LS';
    if (c === 9) return 'NS';
    if (c === 12) return 'Thera';
    if (c === 13) return 'C13';
    if (c >= 14 && c <= 18) return 'Drifter';
    if (c >= 19 && c <= 23) return 'Abyssal';
    if (c === 25) return 'Pochven';
    if (c === 10100) return 'Zarzakh';
    return '';
  }

  function classLabel(info) {
    const short = shortClassOf(info.system_class);
    return (short || info.class_title) + (info.type_description ? ' · ' + info.type_description : '') + (info.is_shattered ? ' · shattered' : '');
  }

  /** Two lines: the name (custom name, tag first when set), then class, signatures and kills. */
  function nodeLabel(s, info, sigs, kills) {
    const title = (s.tag ? s.tag + ' · ' : '') + (s.custom_name || s.name);
    const cls = info ? shortClassOf(info.system_class) || info.class_title : s.classTitle || '';
    const facts = [cls, sigs ? sigs + ' sig' + (sigs === 1 ? '' : 's') : '', kills ? '☠ ' + kills : ''].filter(Boolean);
    return facts.length ? title + '\n' + facts.join(' · ') : title;
  }

  /** One line for zoomed-out views: the name (tag first), with ☠ where kills were recent. */
  function shortLabel(s, kills) {
    return (s.tag ? s.tag + ' · ' : '') + (s.custom_name || s.name) + (kills ? ' ☠' : '');
  }

  const STYLE = [
    {
      selector: 'node',
      style: {
        shape: 'round-rectangle',
        width: 132,
        height: 46,
        'background-color': STATUS_FILL.clear,
        'border-width': 3,
        'border-color': '#9aa5b1',
        label: 'data(shown)',
        'text-wrap': 'wrap',
        'text-max-width': 126,
        'text-valign': 'center',
        'text-halign': 'center',
        'font-size': 12,
        'font-family': 'system-ui, sans-serif',
        color: '#1d232a',
        // The size on screen is kept readable by live-map-labels.js (level of detail), never hidden by zoom.
        'text-background-color': '#ffffff',
        'text-background-opacity': 0,
        'text-background-padding': 1,
      },
    },
    ...Object.entries(STATUS_FILL).map(([k, v]) => ({ selector: `node[status = "${k}"]`, style: { 'background-color': v } })),
    ...Object.entries(CLASS_RING).map(([k, v]) => ({ selector: `node[cls = "${k}"]`, style: { 'border-color': v } })),
    { selector: 'node.killed', style: { 'underlay-color': '#e53935', 'underlay-opacity': 0.35, 'underlay-padding': 7, 'underlay-shape': 'round-rectangle' } },
    { selector: 'node:selected', style: { 'border-width': 5, 'border-color': '#1a73e8' } },
    {
      selector: 'edge',
      style: {
        'curve-style': 'straight',
        width: SIZE_WIDTH.large,
        'line-color': MASS_COLOUR.normal,
        label: 'data(label)',
        'font-size': 10,
        'text-background-color': '#ffffff',
        'text-background-opacity': 0.85,
        'text-background-padding': 2,
        'min-zoomed-font-size': 8,
      },
    },
    ...Object.entries(MASS_COLOUR).map(([k, v]) => ({ selector: `edge[mass = "${k}"]`, style: { 'line-color': v } })),
    ...Object.entries(SIZE_WIDTH).map(([k, v]) => ({ selector: `edge[size = "${k}"]`, style: { width: v } })),
    { selector: 'edge[time = "eol"]', style: { 'line-style': 'dashed', 'line-dash-pattern': [8, 5] } },
    { selector: 'edge[kind = "stargate"], edge[kind = "jump_bridge"]', style: { 'line-style': 'dotted', 'line-color': '#8d99a6', width: 3 } },
    { selector: 'edge:selected', style: { 'underlay-color': '#1a73e8', 'underlay-opacity': 0.45, 'underlay-padding': 5 } },
  ];

  window.MapintelLiveMapStyle = { STYLE, STATUS, MASS, SIZE, CONNECTION_TYPE, shortClassOf, classLabel, nodeLabel, shortLabel };
})();
