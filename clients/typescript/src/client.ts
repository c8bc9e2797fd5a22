/**
 * The typed REST client: openapi-fetch over the types openapi-typescript generated from the service's
 * OpenAPI document. Every path, parameter, body and answer is typed; `{ data, error, response }` comes
 * back from each call.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './generated/openapi.js';

export type { components, operations, paths } from './generated/openapi.js';
/** The API's schemas by name, e.g. `Schemas['SystemDto']`. */
export type Schemas = components['schemas'];
export type MapIntelClient = Client<paths>;

export interface MapIntelClientOptions extends Omit<ClientOptions, 'baseUrl' | 'headers'> {
  /** The service's base URL, e.g. `https://maps.example.org` (no `/api`). */
  baseUrl: string;
  /** A map API key (`mik_…`), an ACL API key (`acl_…`) or the admin token, sent as `Authorization: Bearer`. */
  token?: string;
  /** More headers for every request. */
  headers?: Record<string, string>;
}

/** A client of every operation of the API. */
export function createMapIntelClient(options: MapIntelClientOptions): MapIntelClient {
  const { baseUrl, token, headers, ...rest } = options;
  return createClient<paths>({
    ...rest,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
}
