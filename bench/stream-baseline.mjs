#!/usr/bin/env node
// Baseline (a) of bench-stream: a minimal node:http SSE fan-out of the same frames, with no auth, caps
// or Redis: the floor of Node itself. GET /<map>/ subscribes to that map; the process itself makes
// EVENTS_PER_SECOND events spread over MAPS maps, each carrying `sent_at`.
import http from 'node:http';
import { ulid } from 'ulid';

const port = Number(process.env.BASELINE_PORT);
const maps = Number(process.env.MAPS ?? 200);
let rate = Number(process.env.EVENTS_PER_SECOND ?? 0);
const clients = new Map();
const server = http.createServer((req, res) => {
  if (req.url === '/rate') {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      rate = Number(body);
      res.end('ok');
    });
    return;
  }
  const map = req.url.split('/')[1];
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform' });
  res.write('retry: 3000\n\n');
  let set = clients.get(map);
  if (!set) clients.set(map, (set = new Set()));
  set.add(res);
  res.on('close', () => set.delete(res));
});
server.listen(port, '127.0.0.1', () => process.stdout.write('baseline listening\n'));
let n = 0;
setInterval(() => {
  const count = Math.round(rate / 100);
  for (let i = 0; i < count; i++) {
    const map = `m${n++ % maps}`;
    const e = { id: ulid(), type: 'map_kill', map_id: map, ts: new Date().toISOString(), payload: { sent_at: Date.now() } };
    const frame = `id: ${e.id}\ndata: ${JSON.stringify(e)}\n\n`;
    for (const res of clients.get(map) ?? []) res.write(frame);
  }
}, 10);
