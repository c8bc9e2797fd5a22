/**
 * Every event payload the suites see (webhook bodies at the loopback receivers, stream frames read by
 * `openStream`, event log pages fetched through a test server) is validated here against the published
 * event catalog (src/events/event-schemas.ts) with ajv, JSON Schema 2020-12. A payload that does not
 * match, or a type the catalog lacks, is recorded; the setup file catalog-setup.ts fails the test that
 * saw it. So the catalog cannot drift from what the platform emits.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { EVENT_SCHEMAS, WEBHOOK_ONLY_SCHEMAS } from '../../src/events/event-schemas.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const ajv = new Ajv2020({
  allErrors: true,
  strict: true,
  formats: { uuid: UUID, 'date-time': (s: string) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)) },
});
const validators = new Map<string, ValidateFunction>(
  Object.entries({ ...EVENT_SCHEMAS, ...WEBHOOK_ONLY_SCHEMAS }).map(([type, e]) => [type, ajv.compile(e.schema)]),
);

/**
 * Ids of envelopes a test made up itself and published straight to the transport (not emitted by the
 * platform's writes): they are not held to the catalog.
 */
const madeUp = new Set<string>();

/** Maps whose events a test writes itself, made up (straight to the outbox or the transport). */
const madeUpMaps = new Set<string>();

/** Every event of this map is made up by the test (see `madeUp`). */
export function madeUpEventsOf(mapId: string): void {
  madeUpMaps.add(mapId);
}

/** Marks an envelope a test made up (see `madeUp`); returns it. */
export function madeUpEvent<T extends { id: string }>(e: T): T {
  madeUp.add(e.id);
  return e;
}

/** Payloads that did not match the catalog since the last `takeCatalogViolations`. */
const violations: string[] = [];

/** How many payloads were checked (a test of the hook itself reads it). */
export let catalogChecks = 0;

/** Checks one envelope (`{id, type, map_id, ts, payload}`); anything else is not an event and is left alone. */
export function checkEnvelope(value: unknown, where: string): void {
  if (typeof value !== 'object' || value === null) return;
  const e = value as { type?: unknown; payload?: unknown; id?: unknown; map_id?: unknown };
  if (typeof e.type !== 'string' || !('payload' in e) || !('id' in e) || !('map_id' in e)) return;
  if ((typeof e.id === 'string' && madeUp.has(e.id)) || (typeof e.map_id === 'string' && madeUpMaps.has(e.map_id))) return;
  catalogChecks++;
  const validate = validators.get(e.type);
  if (!validate) {
    violations.push(`${where}: event type "${e.type}" is not in the event catalog (src/events/event-schemas.ts)`);
    return;
  }
  if (!validate(e.payload)) {
    violations.push(`${where}: ${e.type} payload does not match the catalog: ${ajv.errorsText(validate.errors)}; payload ${JSON.stringify(e.payload)}`);
  }
}

/** `checkEnvelope` of a JSON text (a webhook body, a stream frame's data); text that is not JSON is left alone. */
export function checkEnvelopeText(text: string | undefined, where: string): void {
  if (!text) return;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return;
  }
  checkEnvelope(value, where);
}

/** The violations recorded so far, and forgets them. */
export function takeCatalogViolations(): string[] {
  return violations.splice(0);
}
