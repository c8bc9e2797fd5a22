/** Rules of activity increments that need no database. */
import { ValidationError } from '../../common/errors.js';
import type { CharacterActivityRequest } from './activity.dto.js';
import type { ActivityIncrement } from './activity.repository.js';

/** The increments of a request (omitted ones are 0); 400 unless at least one is positive. */
export function incrementOf(input: CharacterActivityRequest): ActivityIncrement {
  const inc = { passages: input.passages ?? 0, connections: input.connections ?? 0, signatures: input.signatures ?? 0 };
  if (inc.passages + inc.connections + inc.signatures === 0) {
    throw new ValidationError([{ field: 'body', message: 'at least one of passages, connections, signatures must be positive' }]);
  }
  return inc;
}
