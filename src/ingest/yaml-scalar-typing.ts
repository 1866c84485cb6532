// Ingest layer: the JCR typing of YAML export scalars (failsafe schema: types are inferred here, by
// JCR rules, or named by tags), shared by the line reader and the pieces `yaml` composes.
import type { BlobSpool } from '../store/rows.js';
import {
  coerceValue, normalizeDate, parsePropertyType, type PropertyType, type ScalarValue,
} from '../model/property-type.js';
import type { ImportError } from './import-error.js';
import { MAX_IMPORT_VALUE_CHARS } from './import-limits.js';

const YAML_TAG = 'tag:yaml.org,2002:';
/** `!!int` and friends are not Magnolia's, but hand-written exports use them; map them to JCR types. */
const YAML_CORE_TAGS: ReadonlyMap<string, PropertyType | null> = new Map([
  ['str', 'String'], ['int', 'Long'], ['float', 'Double'], ['bool', 'Boolean'], ['timestamp', 'Date'], ['binary', 'Binary'],
  ['null', null],
]);
const NULL_TEXT = /^(?:~|null|Null|NULL|)$/;
const BOOLEAN_TEXT = /^(?:true|True|TRUE|false|False|FALSE)$/;
const INTEGER_TEXT = /^[-+]?[0-9]+$/;
/** YAML 1.2 core-schema float; also what a `!decimal` value must look like. */
const NUMBER_TEXT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const DATE_TEXT = /^\d{4}-\d{2}-\d{2}(?:[T ]|$)/;

/** A scalar as written: its text (quotes and escapes resolved), whether it was plain, its resolved tag. */
export interface RawScalar {
  readonly text: string;
  readonly plain: boolean;
  readonly tag: string | undefined;
  readonly line: number | undefined;
}

export interface TypedValue {
  type: PropertyType;
  value: ScalarValue;
  /** The scalar's text, used when the items of a sequence disagree and everything falls back to String. */
  text: string;
  explicit: boolean;
}

export interface TypingContext {
  fail(line: number | undefined, reason: string, cause?: unknown): ImportError;
  /** Decodes a base64 value to a spool file; the hash is known at once. Throws on bad base64. */
  spoolBinary(text: string): BlobSpool;
}

export function isNullScalar(s: RawScalar): boolean {
  return s.plain && s.tag === undefined && NULL_TEXT.test(s.text);
}

/** Returns undefined for a null value, which Magnolia exports never write and which means "no property". */
export function typeScalar(ctx: TypingContext, name: string, s: RawScalar, seqTag: string | undefined): TypedValue | undefined {
  const out: TypedValue = { type: 'String', value: '', text: '', explicit: false };
  return typeText(ctx, name, s.text, s.plain, s.tag, s.line, seqTag, out) ? out : undefined;
}

/**
 * typeScalar of a scalar given by its parts, into `out` (the line reader types every property of a
 * file: an object or two per value showed as garbage); false for a null value.
 */
export function typeText(
  ctx: TypingContext, name: string, text: string, plain: boolean, ownTag: string | undefined, line: number | undefined,
  seqTag: string | undefined, out: TypedValue,
): boolean {
  const tag = ownTag ?? seqTag;
  // A binary is spooled to disk, so only the file's size bounds it; other values are kept in memory.
  if (text.length > MAX_IMPORT_VALUE_CHARS && !(tag !== undefined && tagType(ctx, tag, line) === 'Binary')) {
    throw ctx.fail(line, `"${name}": a value longer than ${MAX_IMPORT_VALUE_CHARS} characters`);
  }
  out.text = text;
  if (tag === undefined) {
    out.explicit = false;
    if (!plain) return typed(out, 'String', text);
    if (NULL_TEXT.test(text)) return false;
    return inferPlain(text, out);
  }
  out.explicit = true;
  const type = tagType(ctx, tag, line);
  if (type === null) return false;
  if (type === 'Binary') {
    try {
      return typed(out, type, ctx.spoolBinary(text).hash);
    } catch (err) {
      throw ctx.fail(line, `"${name}": bad ${tag} value: ${messageOf(err)}`, err);
    }
  }
  if (type === 'Decimal' && !NUMBER_TEXT.test(text.trim())) {
    throw ctx.fail(line, `"${name}": bad ${tag} value: ${JSON.stringify(text)}`);
  }
  try {
    return typed(out, type, coerceValue(type, text));
  } catch (err) {
    throw ctx.fail(line, `"${name}": bad ${tag} value: ${messageOf(err)}`, err);
  }
}

function typed(out: TypedValue, type: PropertyType, value: ScalarValue): true {
  out.type = type;
  out.value = value;
  return true;
}

/**
 * A multi-value property of the first `count` items (combineSequence's rules, without an object per
 * item); `firstLine` locates a disagreement of explicit types.
 */
export function typeSequence(
  ctx: TypingContext, name: string, items: readonly RawScalar[], seqTag: string | undefined, firstLine: number | undefined,
  count = items.length,
): { type: PropertyType; values: ScalarValue[] } {
  const values: ScalarValue[] = [];
  const typed = SEQUENCE_ITEM;
  let type: PropertyType = 'String';
  let same = true;
  let explicitNotString = false;
  for (let i = 0; i < count; i++) {
    const item = items[i]!;
    if (!typeText(ctx, name, item.text, item.plain, item.tag, item.line, seqTag, typed)) {
      throw ctx.fail(item.line, `"${name}": a multi-value property cannot hold null`);
    }
    if (i === 0) type = typed.type;
    else if (typed.type !== type) same = false;
    if (typed.explicit && typed.type !== 'String') explicitNotString = true;
    values.push(typed.value);
  }
  if (same) return { type, values };
  // Inferred types may disagree (`[1, a]`); explicitly tagged ones must not, or data would be lost.
  if (explicitNotString) throw ctx.fail(firstLine, `"${name}": the values of a multi-value property have different types`);
  const texts: ScalarValue[] = [];
  for (let i = 0; i < count; i++) texts.push(items[i]!.text);
  return { type: 'String', values: texts };
}

/** Where typeSequence types each item (it keeps only the value). */
const SEQUENCE_ITEM: TypedValue = { type: 'String', value: '', text: '', explicit: false };

export function combineSequence(
  ctx: TypingContext, name: string, read: readonly TypedValue[], firstLine: number | undefined,
): { type: PropertyType; values: ScalarValue[] } {
  if (read.length === 0) return { type: 'String', values: [] };
  const type = read[0]!.type;
  if (read.every((v) => v.type === type)) return { type, values: read.map((v) => v.value) };
  // Inferred types may disagree (`[1, a]`); explicitly tagged ones must not, or data would be lost.
  if (read.some((v) => v.explicit && v.type !== 'String')) {
    throw ctx.fail(firstLine, `"${name}": the values of a multi-value property have different types`);
  }
  return { type: 'String', values: read.map((v) => v.text) };
}

/** `!weakreference`, `!Long`, … name JCR types case-insensitively; null means a `!!null` value. */
function tagType(ctx: TypingContext, tag: string, line: number | undefined): PropertyType | null {
  if (tag.startsWith(YAML_TAG)) {
    const core = YAML_CORE_TAGS.get(tag.slice(YAML_TAG.length));
    if (core !== undefined) return core;
  } else if (tag.startsWith('!')) {
    const type = parsePropertyType(tag.slice(1));
    if (type) return type;
  }
  throw ctx.fail(line, `unknown tag ${tag}`);
}

/** A plain scalar's JCR type and value into `out` (a date is normalized once: that is the costly part). */
function inferPlain(text: string, out: TypedValue): true {
  // Most plain scalars of an export are numbers, booleans or dates: the first character picks the test.
  const c = text.charCodeAt(0);
  const digitOrSign = (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46;
  if (!digitOrSign) {
    if (BOOLEAN_TEXT.test(text)) return typed(out, 'Boolean', coerceValue('Boolean', text));
    return typed(out, 'String', text);
  }
  if (INTEGER_TEXT.test(text)) return typed(out, 'Long', coerceValue('Long', text));
  if (NUMBER_TEXT.test(text)) return typed(out, 'Double', coerceValue('Double', text));
  if (DATE_TEXT.test(text)) {
    const date = normalizeDate(text);
    if (date !== undefined) return typed(out, 'Date', date);
  }
  return typed(out, 'String', text);
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
