/**
 * The operator's informer against a scripted apiserver on loopback: what a real one rarely does on
 * demand (a stream that goes silent, a watch closed at once, 403, 410, ERROR events) and how the
 * informer answers it: jittered watch timeouts, backoff instead of a hot loop, relists, a restart
 * counted by reason, and how long it has gone without a working watch (what /readyz reads).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { KubeClient } from '../../src/operator/kube-client.js';
import { Informer, type KubeObject, type RestartReason } from '../../src/operator/informer.js';
import { answer, FakeApiserver, openWatch, status } from '../support/fake-apiserver.js';
import { eventually } from '../support/operator-harness.js';

const PATH = '/api/v1/namespaces/ns/configmaps';
const log = pino({ level: 'silent' });
const cm = (name: string, rv: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: rv } });
const list = (rv: string, items: KubeObject[]) => ({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: rv }, items });

let fake: FakeApiserver;
let client: KubeClient;
let informer: Informer<KubeObject> | undefined;
let restarts: RestartReason[];

beforeEach(async () => {
  fake = await FakeApiserver.start();
  client = new KubeClient(fake.kubeConfig(), { qps: 1000, burst: 1000 });
  restarts = [];
});

afterEach(async () => {
  await informer?.stop();
  informer = undefined;
  client.close();
  await fake.stop();
});

function start(opts: ConstructorParameters<typeof Informer<KubeObject>>[7] = {}): Informer<KubeObject> {
  informer = new Informer<KubeObject>(client, PATH, { upsert: () => undefined, delete: () => undefined }, log, {}, undefined, false, {
    retryMinMs: 100,
    retryMaxMs: 2000,
    random: () => 0,
    onRestart: (r) => restarts.push(r),
    ...opts,
  });
  informer.start();
  return informer;
}

const watches = () => fake.seen('GET', PATH, { watch: true });
const lists = () => fake.seen('GET', PATH, { watch: false });
/** Gaps between successive watch requests, in milliseconds. */
const gaps = () =>
  watches()
    .slice(1)
    .map((w, i) => w.at - watches()[i]!.at);

describe('Informer against a scripted apiserver', () => {
  it('asks each watch for a timeout jittered to [1, 2) times the base, as client-go does', async () => {
    let n = 0;
    fake.script = (req, res) => {
      if (req.query.get('watch') !== 'true') return answer(res, 200, list('10', []));
      // The first watch ends at once after an event; the second stays open.
      const w = openWatch(res);
      if (n++ === 0) {
        w.send('ADDED', cm('a', '11'));
        w.end();
      }
    };
    const randoms = [0.5, 0.999];
    start({ watchTimeoutSeconds: 300, random: () => randoms.shift() ?? 0 });
    await eventually('two watches', () => watches().length >= 2);
    expect(watches().map((w) => w.query.get('timeoutSeconds'))).toEqual(['450', '599']);
    // The second watch goes on from the event's resource version, with bookmarks.
    expect(watches()[1]!.query.get('resourceVersion')).toBe('11');
    expect(watches()[1]!.query.get('allowWatchBookmarks')).toBe('true');
  });

  it('backs off a watch the server closes at once with no event, instead of reopening it in a loop', async () => {
    fake.script = (req, res) => {
      if (req.query.get('watch') !== 'true') return answer(res, 200, list('10', [cm('a', '10')]));
      openWatch(res).end();
    };
    start();
    await eventually('four watches', () => watches().length >= 4, 30_000);
    // 100, 200, 400 ms at least between them (retryMinMs 100, doubling; jitter pinned to 0).
    const g = gaps().slice(0, 3);
    expect(g[0]).toBeGreaterThanOrEqual(95);
    expect(g[1]).toBeGreaterThanOrEqual(195);
    expect(g[2]).toBeGreaterThanOrEqual(395);
    expect(restarts.slice(0, 3)).toEqual(['short', 'short', 'short']);
    // A short watch is not a 410: the cache is kept and no relist happens.
    expect(lists()).toHaveLength(1);
    expect(informer!.list().map((o) => o.metadata.name)).toEqual(['a']);
  });

  it('gives up a half-open stream after the idle time and watches again from the last resource version', async () => {
    let n = 0;
    fake.script = (req, res) => {
      if (req.query.get('watch') !== 'true') return answer(res, 200, list('10', []));
      const w = openWatch(res);
      // First watch: one event, then silence (no bytes, never closed). Second: a new object.
      if (n++ === 0) w.send('ADDED', cm('a', '12'));
      else w.send('ADDED', cm('b', '13'));
    };
    start({ idleMs: 400 });
    await eventually('the object of the second watch', () => informer!.get('ns/b'), 20_000);
    expect(watches()[1]!.query.get('resourceVersion')).toBe('12');
    expect(restarts[0]).toBe('idle');
    expect(lists()).toHaveLength(1);
  });

  it('on 403 keeps retrying with growing pauses and reports how long it has had no watch; a success clears it', async () => {
    let allowed = false;
    fake.script = (req, res) => {
      if (req.query.get('watch') !== 'true') return answer(res, 200, list('10', []));
      if (!allowed) return answer(res, 403, status(403, 'Forbidden', 'configmaps is forbidden'));
      openWatch(res);
    };
    const inf = start();
    await eventually('four refused watches', () => watches().length >= 4, 30_000);
    expect(gaps()[1]).toBeGreaterThanOrEqual(195);
    expect(gaps()[2]).toBeGreaterThanOrEqual(395);
    expect(restarts.slice(0, 3)).toEqual(['failed', 'failed', 'failed']);
    expect(inf.hasSynced).toBe(true);
    expect(inf.failingForMs()).toBeGreaterThanOrEqual(300);
    allowed = true;
    await eventually('the watch re-established', () => inf.failingForMs() === 0, 30_000);
  });

  it('lists again after a 410 answer and after an ERROR event of code 410, replacing the cache', async () => {
    let phase = 0;
    fake.script = (req, res) => {
      if (req.query.get('watch') !== 'true') {
        phase++;
        return answer(res, 200, phase === 1 ? list('10', [cm('a', '10')]) : list(`${20 + phase}`, [cm('b', '20')]));
      }
      if (phase === 1) return answer(res, 410, status(410, 'Expired', 'too old resource version'));
      const w = openWatch(res);
      if (phase === 2) w.send('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' });
    };
    const inf = start();
    await eventually('three lists', () => lists().length >= 3, 20_000);
    expect(restarts.slice(0, 2)).toEqual(['expired', 'expired']);
    expect(inf.list().map((o) => o.metadata.name)).toEqual(['b']);
    // The watch after the last relist starts from that list's resource version.
    await eventually('a watch from the third list', () => watches().find((w) => w.query.get('resourceVersion') === '23'));
  });

  it('ends a watch on an ERROR event of another code and backs off before the next, keeping the cache', async () => {
    fake.script = (req, res) => {
      if (req.query.get('watch') !== 'true') return answer(res, 200, list('10', [cm('a', '10')]));
      const w = openWatch(res);
      w.send('ERROR', { kind: 'Status', code: 500, reason: 'InternalError', message: 'etcd is unhappy' });
      // The stream stays open: it is the informer that must stop reading it.
    };
    start();
    await eventually('three watches', () => watches().length >= 3, 20_000);
    expect(gaps()[0]).toBeGreaterThanOrEqual(95);
    expect(gaps()[1]).toBeGreaterThanOrEqual(195);
    expect(restarts.slice(0, 2)).toEqual(['error_event', 'error_event']);
    expect(lists()).toHaveLength(1);
    expect(informer!.get('ns/a')).toBeDefined();
  });
});
