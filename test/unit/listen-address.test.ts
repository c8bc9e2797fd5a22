import { describe, expect, it } from 'vitest';
import { listenAddress } from '../../src/common/listen-address.js';

describe('listenAddress', () => {
  it('gives the bound address and a URL this machine reaches, IPv6 in brackets', () => {
    expect(listenAddress('0.0.0.0', 8080)).toEqual({ address: '0.0.0.0:8080', url: 'http://127.0.0.1:8080' });
    expect(listenAddress('::', 8081)).toEqual({ address: '[::]:8081', url: 'http://127.0.0.1:8081' });
    expect(listenAddress('127.0.0.1', 9000)).toEqual({ address: '127.0.0.1:9000', url: 'http://127.0.0.1:9000' });
    expect(listenAddress('::1', 9000)).toEqual({ address: '[::1]:9000', url: 'http://[::1]:9000' });
    expect(listenAddress('api.internal', 80)).toEqual({ address: 'api.internal:80', url: 'http://api.internal:80' });
  });
});
