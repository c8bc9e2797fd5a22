/** Types of bench/hostile-body-shapes.mjs, for the tests that send the same bodies. */
export function unknownFieldsBody(bytes?: number, kills?: number): string;
export function nestedBody(bytes?: number): string;
export function hostileBody(shape: 'nested' | 'unknown-fields', bytes?: number): string;
