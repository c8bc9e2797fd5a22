// Constants and small helpers shared by the parts of bench/api.mjs.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const ENDPOINTS = ['/api/map/systems', '/api/map/connections', '/api/map/systems-kills'];
export const SYSTEMS = 500;
export const CONNECTIONS = 800;
export const KILLS = 2000;

export const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);

export const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');
