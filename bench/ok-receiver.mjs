// A loopback HTTP receiver for the client microbenchmarks (bench/webhooks-sender.mjs), in a
// process of its own so that its CPU is not counted: drains each request and answers 200 `{"ok":true}`.
// Started by `startOkReceiver` (bench/support.mjs), which it tells its port over IPC. argv[2]: the
// keep-alive timeout of idle connections, ms.
import http from 'node:http';

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11' });
    res.end('{"ok":true}');
  });
});
server.keepAliveTimeout = Number(process.argv[2]);
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
