import { parseSize } from './units';

/** A value a knob takes in a matrix: as an option of the method, passed to its client as written. */
export type KnobValue = string | number | boolean;

/**
 * One documented setting of a method's client that a matrix may tune (`tune`), as data: what it
 * does, its documented default, the values it accepts and where that is documented. The knob's
 * name is the method's option name, so a setting reaches the client through the option plumbing
 * the variants already use (runner/methods/NAME.impl.ts).
 */
export type Knob = KnobBase & (
  /** A size (bytes, or a number with a unit: 8MiB), within min..max. */
  | { kind: 'size'; min: string; max: string }
  /** A whole number within min..max, in `unit` where it has one. */
  | { kind: 'integer'; min: number; max: number; unit?: string }
  /** One of the listed words. */
  | { kind: 'choice'; values: readonly string[] }
  /** One of the keywords, or a number within min..max (whole where `integer`). */
  | { kind: 'number-or'; keywords: readonly string[]; min: number; max: number; integer?: boolean; unit?: string }
  /** On (true) or off (false). */
  | { kind: 'boolean' }
);

interface KnobBase {
  /** What it changes, in a few words. */
  summary: string;
  /** The client's own default: what it does when the option is not given. */
  default: KnobValue;
  /** Where the default and the range are documented (the client's help or docs). */
  source: string;
  /** Where a bound is this project's, not the client's (the client documents none): why. */
  bound?: string;
}

/** A knob's accepted values as people read them: "5MiB to 5GiB", "off, minimal, writes or full". */
export function knobRange(knob: Knob): string {
  const unit = (u?: string) => (u ? ` ${u}` : '');
  switch (knob.kind) {
    case 'size': return `a size from ${knob.min} to ${knob.max}`;
    case 'integer': return `a whole number from ${knob.min} to ${knob.max}${unit(knob.unit)}`;
    case 'choice': return `one of ${knob.values.join(', ')}`;
    case 'number-or': return `${knob.keywords.join(', ')} or ${knob.integer ? 'a whole number' : 'a number'} from ${knob.min} to ${knob.max}${unit(knob.unit)}`;
    case 'boolean': return 'true or false';
  }
}

/** Whether a value is within a knob's documented range. */
export function knobAccepts(knob: Knob, value: KnobValue): boolean {
  switch (knob.kind) {
    case 'size': {
      if (typeof value === 'boolean') return false;
      let bytes: number;
      try {
        bytes = parseSize(value);
      } catch {
        return false;
      }
      return bytes >= parseSize(knob.min) && bytes <= parseSize(knob.max);
    }
    case 'integer':
      return typeof value !== 'boolean' && String(value).trim() !== '' && Number.isInteger(Number(value)) && Number(value) >= knob.min && Number(value) <= knob.max;
    case 'choice':
      return typeof value === 'string' && knob.values.includes(value);
    case 'number-or': {
      if (typeof value === 'string' && knob.keywords.includes(value)) return true;
      if (typeof value === 'boolean' || String(value).trim() === '') return false;
      const n = Number(value);
      return Number.isFinite(n) && (!knob.integer || Number.isInteger(n)) && n >= knob.min && n <= knob.max;
    }
    case 'boolean':
      return typeof value === 'boolean';
  }
}

/** A setting's value as the grid's variant names spell it: sizes as given, without spaces. */
export function knobValueLabel(value: KnobValue): string {
  return String(value).replace(/\s+/g, '');
}
