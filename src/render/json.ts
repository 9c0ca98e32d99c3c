/**
 * The model as JSON (schemaVersion 1). 64-bit and wider values become strings, field
 * definitions become their canonical names, so the output is plain, stable data.
 */
import type { Diagnostic } from '../model/diagnostics.ts';
import type { Flow, Group, MatchField } from '../model/flow.ts';
import type { FieldDef } from '../model/fields.ts';
import type { TableRef } from '../model/tables.ts';
import { formatFieldValue } from '../syntax/field-value.ts';
import { formatFlowCanonical } from './flow.ts';
import { formatGroup } from './group.ts';
import { portNameOnly } from '../model/match.ts';
import { ones } from '../model/values.ts';
import { AsciiBuilder } from '../model/ascii-builder.ts';

export const SCHEMA_VERSION = 1;

function isFieldDef(v: unknown): v is FieldDef {
  return typeof v === 'object' && v !== null && 'nxmNames' in v && 'storage' in v && 'name' in v;
}

/**
 * A list whose elements are made only as they are written: a report that repeats every flow of
 * every conjunction would not fit in memory as one object tree. Written piece by piece where the
 * report is streamed, and made whole (one element's worth) where an element is stringified.
 */
export class LazyList<T, U> implements Iterable<U> {
  private readonly items: readonly T[];
  private readonly make: (item: T) => U;

  constructor(items: readonly T[], make: (item: T) => U) {
    this.items = items;
    this.make = make;
  }

  get length(): number {
    return this.items.length;
  }

  /** Element `i`, made now. */
  at(i: number): U {
    return this.make(this.items[i]!);
  }

  *[Symbol.iterator](): Iterator<U> {
    for (const item of this.items) yield this.make(item);
  }
}

/**
 * An object whose members are written piece by piece wherever it stands (see json-stream.ts), for
 * an element that holds lists too long to make whole.
 */
export class StreamedObject {
  readonly members: Readonly<Record<string, unknown>>;

  constructor(members: Readonly<Record<string, unknown>>) {
    this.members = members;
  }
}

/**
 * JSON text made beforehand, compact and on one line, for a value that a report repeats many
 * times: the streamed writer copies the text where it stands instead of encoding a value there.
 */
export class JsonText {
  readonly text: string;

  /** `text` must be valid JSON on one line. */
  constructor(text: string) {
    this.text = text;
  }
}

/**
 * JSON text on one line, all ASCII, that `write` writes as bytes where it stands, for a value a
 * report holds millions of numbers in (the lines of clause flows): neither a string for each nor
 * one for the whole is made, nor is the text encoded again as it is written out.
 */
export class AsciiJson {
  readonly write: (out: AsciiBuilder) => void;

  constructor(write: (out: AsciiBuilder) => void) {
    this.write = write;
  }

  get text(): string {
    const out = new AsciiBuilder();
    this.write(out);
    return out.take();
  }
}

/**
 * Strings written one a line, as JSON.stringify with an indent writes a list of them, but joined
 * where the list stands: a report may list millions (the members of its conjunctions), and
 * encoding them value by value, then indenting the whole text again, cost more than the rest of
 * writing the report.
 */
export class StringList {
  private readonly list: readonly string[] | (() => readonly string[]);
  private made: readonly string[] | undefined;
  /** See the constructor. */
  readonly writeJoined: ((out: AsciiBuilder, separator: string) => boolean) | undefined;

  /**
   * `strings`, or a function that makes them when first read. `writeJoined(out, separator)`,
   * when given: writes the strings, all ASCII and none needing escapes, joined by `separator`
   * (nothing for an empty list) into `out` and says true, or writes nothing and says false when it
   * cannot; a writer of JSON text asks it first, so that the strings themselves need not be made.
   */
  constructor(
    strings: readonly string[] | (() => readonly string[]),
    writeJoined?: (out: AsciiBuilder, separator: string) => boolean,
  ) {
    this.list = strings;
    this.writeJoined = writeJoined;
  }

  get strings(): readonly string[] {
    return typeof this.list === 'function' ? (this.made ??= this.list()) : this.list;
  }
}

/**
 * JSON.stringify replacer: bigint → decimal string, FieldDef → its name, lazy list → array,
 * streamed object → its members, JSON text → the value it encodes, string list → its strings.
 */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (value instanceof StringList) return value.strings;
  if (value instanceof LazyList) return [...(value as LazyList<unknown, unknown>)];
  if (value instanceof StreamedObject) return value.members;
  if (value instanceof JsonText || value instanceof AsciiJson) return JSON.parse(value.text) as unknown;
  if (typeof value === 'bigint') return value.toString();
  if (isFieldDef(value)) return value.name;
  return value;
}

function matchFieldJson(m: MatchField): Record<string, unknown> {
  const exact = m.mask === ones(m.field.bits);
  return {
    field: m.field.name,
    // A port known only by name has no number to write: its value is the name.
    value: portNameOnly(m) ?? formatFieldValue(m.field, m.value),
    ...(exact ? {} : { mask: formatFieldValue(m.field, m.mask) }),
    ...(m.port ? { port: m.port } : {}),
  };
}

/** A table in JSON: its number, or its name. */
export function tableRefJson(t: TableRef): number | string {
  return t.kind === 'number' ? t.number : t.name;
}

export function flowJson(flow: Flow): Record<string, unknown> {
  return {
    table: tableRefJson(flow.table),
    priority: flow.priority,
    cookie: `0x${flow.cookie.toString(16)}`,
    match: flow.match.fields.map(matchFieldJson),
    actions: flow.actions,
    ...(flow.idleTimeout ? { idleTimeout: flow.idleTimeout } : {}),
    ...(flow.hardTimeout ? { hardTimeout: flow.hardTimeout } : {}),
    ...(flow.importance ? { importance: flow.importance } : {}),
    ...(flow.flags.length ? { flags: flow.flags } : {}),
    ...(flow.stats ? { stats: flow.stats } : {}),
    text: formatFlowCanonical(flow, 15),
    source: { file: flow.origin.file, line: flow.origin.line },
  };
}

export function groupJson(group: Group): Record<string, unknown> {
  return {
    id: group.id,
    type: group.type,
    ...(group.selectionMethod ? { selectionMethod: group.selectionMethod } : {}),
    ...(group.selectionMethodParam !== undefined ? { selectionMethodParam: group.selectionMethodParam } : {}),
    ...(group.fields ? { fields: group.fields } : {}),
    buckets: group.buckets,
    text: formatGroup(group, 15),
    source: { file: group.origin.file, line: group.origin.line },
  };
}

export function diagnosticJson(d: Diagnostic): Record<string, unknown> {
  return { severity: d.severity, message: d.message, file: d.file, line: d.line, column: d.column };
}
