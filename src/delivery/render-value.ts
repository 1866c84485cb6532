// Delivery layer: encodes one stored property value as JSON text (the only place that decides value
// formatting): Long/Double/Decimal → number, Boolean → boolean, Date → ISO 8601 string, multi-value →
// array of strings, Binary → never inlined (undefined: the property is left out).
import type { PropertyType, ScalarValue } from '../model/property-type.js';

const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export function scalarAsString(v: ScalarValue): string {
  return typeof v === 'string' ? v : String(v);
}

export function encodeValue(type: PropertyType, value: ScalarValue | readonly ScalarValue[]): string | undefined {
  if (type === 'Binary') return undefined;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += JSON.stringify(scalarAsString(value[i] as ScalarValue));
    }
    return out + ']';
  }
  const v = value as ScalarValue;
  switch (type) {
    case 'Long':
    case 'Double':
      if (typeof v === 'number') return Number.isFinite(v) ? String(v) : JSON.stringify(String(v));
      return DECIMAL.test(String(v)) ? String(v) : JSON.stringify(String(v));
    case 'Decimal':
      return DECIMAL.test(String(v)) ? String(v) : JSON.stringify(String(v));
    case 'Boolean':
      return v === true || v === 'true' ? 'true' : 'false';
    default:
      return JSON.stringify(scalarAsString(v));
  }
}
