import { createHash } from 'node:crypto';

/**
 * Statements that run as named prepared statements: PostgreSQL parses and analyses each once per
 * connection instead of at every execution. For the webhook worker's and the relay's statements, which
 * run many times a second with the same text and new bind values, parsing was most of PostgreSQL's CPU per
 * statement (docs/benchmarks.md, 2026-11-26 03:40-04:40). Only texts registered here are named: a text with
 * values spliced into it would leave a prepared statement per distinct value on every connection.
 * Named only with `DATABASE_PREPARED_STATEMENTS=true`; the default runs them unnamed (a pooler in
 * transaction mode may not carry prepared statements across its server connections).
 */
const names = new Map<string, string>();
/**
 * Texts registered at most: each is a prepared statement on every connection that runs it. A text built
 * with values in it by mistake stops being registered here instead of growing every connection.
 */
const MAX_NAMES = 1_000;

/** Registers `text` (placeholders `$1`, `$2`, …, no values in the text) as a prepared statement; returns it. */
export function prepared(text: string): string {
  if (!names.has(text) && names.size < MAX_NAMES) names.set(text, `mapintel_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`);
  return text;
}

/** The statement name of a registered text, or undefined. */
export function preparedName(text: string): string | undefined {
  return names.get(text);
}
