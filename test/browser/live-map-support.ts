/**
 * Helpers of the live map's browser tests: open /console with a key, read the picture the page draws
 * (window.__mapintelLiveMap.snapshot(): Cytoscape.js's nodes and edges), compare it with the REST
 * answers, and seed a large map.
 */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import type { Platform, TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';

export interface PictureNode {
  id: string;
  ssid: number;
  name: string;
  customName: string | null;
  tag: string | null;
  status: string;
  cls: string;
  sigs: number;
  kills: number;
  label: string;
  x: number;
  y: number;
}

export interface PictureEdge {
  id: string;
  source: number;
  target: number;
  mass: string;
  size: string;
  time: string;
  massStatus: number;
  shipSizeType: number;
  timeStatus: number;
  label: string;
}

export interface Picture {
  nodes: PictureNode[];
  edges: PictureEdge[];
}

/** What the page draws now. */
export function picture(page: Page): Promise<Picture> {
  // A string: the tests' TypeScript has no DOM types.
  return page.evaluate('window.__mapintelLiveMap.snapshot()') as Promise<Picture>;
}

/** Opens /console, connects with `key` to `map` and waits for the stream and the first load of the map. */
export async function openConsole(
  page: Page,
  base: string,
  key: string,
  map: string,
  opts: { expectLive?: boolean; loadTimeout?: number } = {},
): Promise<void> {
  await page.goto(`${base}/console`, { waitUntil: 'load' });
  await page.fill('#key', key);
  await page.fill('#map', map);
  await page.click('#connect');
  if (opts.expectLive === false) return;
  await page.waitForSelector('#status.live');
  // Polled with page.evaluate: waitForFunction's string predicates are evaluated in a way the page's
  // Content-Security-Policy (no eval) refuses.
  await expect.poll(() => page.evaluate('window.__mapintelLiveMap?.loads ?? 0'), { timeout: opts.loadTimeout ?? 30_000 }).toBeGreaterThanOrEqual(1);
}

const STATUS = ['clear', 'home', 'friendly', 'looking_for', 'warning', 'target', 'dangerous'];
const MASS = ['normal', 'half', 'critical'];
const SIZE = ['small', 'medium', 'large', 'freighter', 'capital'];

interface RestSystem {
  solar_system_id: number;
  name: string;
  custom_name: string | null;
  tag: string | null;
  status: number;
  position_x: number;
  position_y: number;
}
interface RestConnection {
  id: string;
  solar_system_source: number;
  solar_system_target: number;
  mass_status: number;
  ship_size_type: number;
  time_status: number;
  wormhole_type: string | null;
}

/**
 * Waits (generously) until the picture is the REST state of the map: the same systems at the same
 * positions with the same names, tags and status, the same connections between the same systems with
 * the same mass, size and time status, and the signature and kill counts of each system. Returns it.
 */
export async function expectPictureMatchesRest(page: Page, t: TestServer, key: string, map: string): Promise<Picture> {
  const get = async <T>(path: string): Promise<T> => {
    const res = await t.fetch(path, { token: key });
    expect(res.status, path).toBe(200);
    return ((await res.json()) as { data: T }).data;
  };
  const { systems, connections } = await get<{ systems: RestSystem[]; connections: RestConnection[] }>(`/api/maps/${map}/systems`);
  const signatures = await get<{ solar_system_id: number }[]>(`/api/maps/${map}/signatures`);
  const kills = await get<{ solar_system_id: number; kills: unknown[] }[]>(`/api/map/systems-kills?slug=${map}`);
  const onMap = new Set(systems.map((s) => s.solar_system_id));
  const expected = {
    nodes: systems
      .map((s) => ({
        ssid: s.solar_system_id,
        name: s.name,
        customName: s.custom_name,
        tag: s.tag,
        status: STATUS[s.status],
        x: s.position_x,
        y: s.position_y,
        sigs: signatures.filter((g) => g.solar_system_id === s.solar_system_id).length,
        kills: kills.find((k) => k.solar_system_id === s.solar_system_id)?.kills.length ?? 0,
      }))
      .sort((a, b) => a.ssid - b.ssid),
    edges: connections
      .filter((c) => onMap.has(c.solar_system_source) && onMap.has(c.solar_system_target))
      .map((c) => ({
        id: c.id,
        source: c.solar_system_source,
        target: c.solar_system_target,
        mass: MASS[c.mass_status],
        size: SIZE[c.ship_size_type],
        time: c.time_status > 0 ? 'eol' : 'fresh',
        label: c.wormhole_type ?? '',
      }))
      .sort((a, b) => a.id.localeCompare(b.id)),
  };
  const shown = async () => {
    const p = await picture(page);
    return {
      nodes: p.nodes
        .map((n) => ({ ssid: n.ssid, name: n.name, customName: n.customName, tag: n.tag, status: n.status, x: n.x, y: n.y, sigs: n.sigs, kills: n.kills }))
        .sort((a, b) => a.ssid - b.ssid),
      edges: p.edges
        .map((e) => ({ id: e.id, source: e.source, target: e.target, mass: e.mass, size: e.size, time: e.time, label: e.label }))
        .sort((a, b) => a.id.localeCompare(b.id)),
    };
  };
  await expect.poll(shown, { timeout: 30_000, interval: 100 }).toEqual(expected);
  return picture(page);
}

/** A map of `systems` systems on a grid of `cols` columns (ids not in the static data, named by the service) and `connections` connections between neighbours. */
export async function seedLargeMap(p: Platform, systems: number, connections: number, cols = 25): Promise<{ key: string; slug: string }> {
  const m = await makeMap(p);
  const id = (i: number) => 33_000_000 + i;
  const inParallel = async (count: number, one: (i: number) => Promise<unknown>) => {
    let next = 0;
    const worker = async () => {
      while (next < count) await one(next++);
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
  };
  await inParallel(systems, (i) =>
    p.mapContent.addSystem(m.map.id, {
      solarSystemId: id(i),
      name: `Grid ${i}`,
      positionX: (i % cols) * 200,
      positionY: Math.floor(i / cols) * 110,
      status: i % 7,
    }),
  );
  const pairs: [number, number][] = [];
  for (let i = 0; i < systems && pairs.length < connections; i++) if ((i + 1) % cols !== 0 && i + 1 < systems) pairs.push([i, i + 1]);
  for (let i = 0; i + cols < systems && pairs.length < connections; i++) pairs.push([i, i + cols]);
  await inParallel(pairs.length, (k) =>
    p.mapContent.addConnection(m.map.id, {
      solarSystemSource: id(pairs[k]![0]),
      solarSystemTarget: id(pairs[k]![1]),
      massStatus: k % 3,
      timeStatus: k % 5 === 0 ? 1 : 0,
      shipSizeType: k % 5,
      wormholeType: 'K162',
    }),
  );
  expect(pairs.length).toBe(connections);
  return { key: m.key, slug: m.map.slug };
}
