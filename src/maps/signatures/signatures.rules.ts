/** Rules of signature writes that need no database. */
import { NotFoundError, ValidationError, type ErrorDetail } from '../../common/errors.js';
import type { SignatureInput } from './signatures.dto.js';

export const SIGNATURE_ID_RE = /^[A-Za-z]{3}-[0-9]{3}$/;

/** Signature fields a batch may set (API names), in column order. */
export const SIGNATURE_FIELDS = ['name', 'kind', 'group', 'type', 'description', 'linked_system_id'] as const;
export type SignatureField = (typeof SIGNATURE_FIELDS)[number];

/** The batch with signature ids upper-cased; 400 when an id is listed twice (in any case). */
export function normaliseBatch(signatures: SignatureInput[]): SignatureInput[] {
  const inputs = signatures.map((s) => ({ ...s, signature_id: s.signature_id.toUpperCase() }));
  const problems: ErrorDetail[] = [];
  const seen = new Set<string>();
  inputs.forEach((s, i) => {
    if (seen.has(s.signature_id)) problems.push({ field: `signatures[${i}].signature_id`, message: `${s.signature_id} is listed more than once` });
    seen.add(s.signature_id);
  });
  if (problems.length) throw new ValidationError(problems);
  return inputs;
}

/** A signature id of a path, upper-cased; 404 `signature_not_found` when it cannot be one. */
export function signatureIdOf(id: string): string {
  if (!SIGNATURE_ID_RE.test(id)) throw new NotFoundError('Signature not found', 'signature_not_found');
  return id.toUpperCase();
}

/** The given fields of an input that differ from the stored row. */
export function changedSignatureFields(input: SignatureInput, row: Record<SignatureField, unknown>): Partial<Record<SignatureField, unknown>> {
  return Object.fromEntries(SIGNATURE_FIELDS.filter((f) => input[f] !== undefined && input[f] !== row[f]).map((f) => [f, input[f]]));
}

/** Solar system ids the batch links to. */
export function linkedSystems(inputs: SignatureInput[]): number[] {
  return [...new Set(inputs.flatMap((s) => (typeof s.linked_system_id === 'number' ? [s.linked_system_id] : [])))];
}
