import { createHash } from 'node:crypto';

/** A JSON body as bounded byte chunks, with its length and strong ETag (see etagOf). */
export interface JsonChunks {
  chunks: Buffer[];
  length: number;
  etag: string;
}

/** Size of the chunks the body is cut into: large enough for few writes, small enough to stay out of the large-object space. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Serialises `value` to exactly the bytes `JSON.stringify(value)` gives, without ever building the
 * whole text: the top-level object's fields, and each element of its array fields, are stringified one
 * at a time and appended to the current chunk, which is encoded and hashed once it passes 64 KiB. A
 * large map read (systems-kills) is therefore held once, as its chunks, not as a string and a copy.
 */
export function jsonChunks(value: unknown): JsonChunks {
  const hash = createHash('sha1');
  const chunks: Buffer[] = [];
  let length = 0;
  let pending = '';
  const push = (text: string) => {
    pending += text;
    if (pending.length >= CHUNK_CHARS) flush();
  };
  const flush = () => {
    if (!pending) return;
    const bytes = Buffer.from(pending, 'utf8');
    pending = '';
    hash.update(bytes);
    chunks.push(bytes);
    length += bytes.length;
  };
  if (isPlainObject(value)) {
    push('{');
    let first = true;
    for (const [key, field] of Object.entries(value)) {
      if (Array.isArray(field)) {
        push(`${first ? '' : ','}${JSON.stringify(key)}:[`);
        field.forEach((element: unknown, i) => push((i ? ',' : '') + (JSON.stringify(element) ?? 'null')));
        push(']');
      } else {
        // Fields JSON leaves out (undefined, functions, symbols) are left out here too.
        const text = JSON.stringify(field) as string | undefined;
        if (text === undefined) continue;
        push(`${first ? '' : ','}${JSON.stringify(key)}:${text}`);
      }
      first = false;
    }
    push('}');
  } else {
    push(JSON.stringify(value) ?? '');
  }
  flush();
  return { chunks, length, etag: `"${hash.digest('base64url')}"` };
}

/** An object JSON.stringify writes field by field: no toJSON of its own, not an array. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
