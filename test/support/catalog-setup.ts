/** Fails a test during which an emitted payload did not match the event catalog (event-catalog.ts). */
import { afterEach } from 'vitest';
import { takeCatalogViolations } from './event-catalog.js';

afterEach(() => {
  const found = takeCatalogViolations();
  if (found.length) throw new Error(`event payloads outside the event catalog:\n${found.slice(0, 10).join('\n')}`);
});
