import { parseSize } from '../core/units';

/** JSON Schema of a size parameter: bytes, or a string such as "100KiB" or "1MB". */
export const SIZE_SCHEMA = { oneOf: [{ type: 'integer', minimum: 0 }, { type: 'string', pattern: '^\\s*\\d+(\\.\\d+)?\\s*([KMGT]i?B?|B)?\\s*$' }] };

export const sizeOf = parseSize;
