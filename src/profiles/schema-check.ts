/**
 * Checks a YAML document against the profile JSON Schema and turns it into plain data in the same
 * walk, so that every problem points at the YAML node it is about. It knows the JSON Schema
 * keywords the profile schema uses ($ref into $defs, type, enum, const, pattern, minimum, maximum,
 * properties, required, additionalProperties, items, oneOf) and flowscope's own annotations:
 * `x-bigint` (an integer of any size, also as `0x…` text), `x-release` (a dotted release read from
 * its text, so an unquoted 1.10 stays 1.10) and `x-flatten` (list items that are lists, usually
 * aliases of anchored lists, are spliced in). YAML merge keys (`<<: *anchor`) are honoured.
 */
import type { Alias, Document, Node, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import { yamlLibrary } from '../syntax/yaml-library.ts';

let yaml: ReturnType<typeof yamlLibrary> | undefined;
const lib = (): ReturnType<typeof yamlLibrary> => (yaml ??= yamlLibrary());
const isAlias = (n: unknown): n is Alias => lib().isAlias(n);
const isMap = (n: unknown): n is YAMLMap => lib().isMap(n);
const isScalar = (n: unknown): n is Scalar => lib().isScalar(n);
const isSeq = (n: unknown): n is YAMLSeq => lib().isSeq(n);

export interface SchemaNode {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean;
  readonly items?: SchemaNode;
  readonly oneOf?: readonly SchemaNode[];
  readonly $defs?: Readonly<Record<string, SchemaNode>>;
  readonly 'x-bigint'?: boolean;
  readonly 'x-release'?: boolean;
  readonly 'x-flatten'?: boolean;
}

/** A problem found at an offset of the YAML text; `path` names the value (`tables[3].miss`). */
export interface NodeProblem {
  readonly offset: number;
  readonly path: string;
  readonly message: string;
}

/** Where each object or array made from the document came from: its YAML node's offset, and each value's. */
export type Origins = WeakMap<object, { readonly at: number; readonly values: ReadonlyMap<string | number, number> }>;

const INVALID = Symbol('invalid');
type Checked = unknown | typeof INVALID;

/** How deep aliases may lead before the document is taken to refer to itself. */
const MAX_DEPTH = 64;

export class SchemaChecker {
  readonly problems: NodeProblem[] = [];
  readonly origins: Origins = new WeakMap();
  readonly #root: SchemaNode;
  /** Each anchor's nodes by offset: an alias names the last one before it (the library's own lookup walks the document). */
  readonly #anchors = new Map<string, { readonly offset: number; readonly node: Node }[]>();

  constructor(root: SchemaNode, doc: Document) {
    this.#root = root;
    lib().visit(doc, (_key, node) => {
      const n = node as (Node & { anchor?: string }) | null;
      if (typeof n?.anchor === 'string' && n.anchor !== '') {
        const list = this.#anchors.get(n.anchor) ?? [];
        list.push({ offset: n.range?.[0] ?? 0, node: n });
        this.#anchors.set(n.anchor, list);
      }
    });
  }

  /** The document's value, or undefined when a problem makes it unusable. */
  check(node: Node | null): unknown {
    const v = this.#check(node, this.#root, '', 0);
    return v === INVALID ? undefined : v;
  }

  #resolve(schema: SchemaNode): SchemaNode {
    let s = schema;
    while (s.$ref !== undefined) {
      const name = s.$ref.replace(/^#\/\$defs\//, '');
      const target = this.#root.$defs?.[name];
      if (target === undefined) throw new Error(`profile schema: unknown $ref ${s.$ref}`);
      s = target;
    }
    return s;
  }

  #report(node: Node | null, path: string, message: string, into: NodeProblem[] = this.problems): void {
    into.push({ offset: node?.range?.[0] ?? 0, path, message });
  }

  #deref(node: Node | null, depth: number): Node | null {
    let n = node;
    for (let i = 0; n !== null && isAlias(n); i++) {
      if (i > MAX_DEPTH || depth > MAX_DEPTH) return null;
      const at = n.range?.[0] ?? 0;
      n = this.#anchors.get(n.source)?.findLast((a) => a.offset < at)?.node ?? null;
    }
    return n;
  }

  #check(
    raw: Node | null,
    schemaIn: SchemaNode,
    path: string,
    depth: number,
    into: NodeProblem[] = this.problems,
  ): Checked {
    const schema = this.#resolve(schemaIn);
    const node = this.#deref(raw, depth);
    if (depth > MAX_DEPTH) {
      this.#report(raw, path, 'nested too deep (an alias that refers to itself?)', into);
      return INVALID;
    }
    if (schema.oneOf !== undefined) return this.#oneOf(node, schema.oneOf, path, depth, into);
    const kind = nodeKind(node);
    const types = schema.type === undefined ? undefined : typeof schema.type === 'string' ? [schema.type] : schema.type;
    if (types !== undefined && !types.some((t) => fits(t, kind))) {
      this.#report(node ?? raw, path, `expected ${types.map(typeWords).join(' or ')}, found ${kindWords(kind)}`, into);
      return INVALID;
    }
    if (kind === 'object') return this.#object(node as YAMLMap, schema, path, depth, into);
    if (kind === 'array') return this.#array(node as Node & { items: Node[] }, schema, path, depth, into);
    return this.#scalar(node as Scalar | null, schema, path, into);
  }

  #oneOf(
    node: Node | null,
    branches: readonly SchemaNode[],
    path: string,
    depth: number,
    into: NodeProblem[],
  ): Checked {
    const tries = branches.map((b) => {
      const problems: NodeProblem[] = [];
      const value = this.#check(node, b, path, depth + 1, problems);
      return { branch: this.#resolve(b), problems, value };
    });
    const ok = tries.find((t) => t.problems.length === 0 && t.value !== INVALID);
    if (ok) return ok.value;
    // Report the branch the value meant: the one its discriminating key (action, kind) selects, else
    // the one whose type it has; when no branch stands out, say what was expected.
    const discriminated = tries.filter((t) => discriminatorFits(t.branch, node, this.#resolve.bind(this)));
    const typed = tries.filter(
      (t) => t.branch.type === undefined || [t.branch.type].flat().some((ty) => fits(ty, nodeKind(node))),
    );
    const pick = discriminated.length === 1 ? discriminated[0] : typed.length === 1 ? typed[0] : undefined;
    if (pick) into.push(...pick.problems);
    else {
      const keys = tries.map((t) => discriminatorValues(t.branch, this.#resolve.bind(this))).flat();
      const message =
        keys.length > 0 && nodeKind(node) === 'object'
          ? `expected ${keys.join(', ')}`
          : `expected ${tries.map((t) => [t.branch.type ?? 'value'].flat().map(typeWords).join(' or ')).join(', or ')}`;
      this.#report(node, path, message, into);
    }
    return INVALID;
  }

  #object(map: YAMLMap, schema: SchemaNode, path: string, depth: number, into: NodeProblem[]): Checked {
    const out: Record<string, unknown> = {};
    const seen = new Map<string, Node | null>();
    const values = new Map<string, number>();
    let ok = true;
    const take = (pairs: YAMLMap['items'], merged: boolean): void => {
      for (const pair of pairs) {
        const key = pair.key as Node | null;
        if (isScalar(key) && (key.source === '<<' || typeof key.value === 'symbol')) {
          const sources = this.#deref(pair.value as Node | null, depth);
          const maps = isSeq(sources) ? sources.items.map((i) => this.#deref(i as Node, depth)) : [sources];
          for (const m of maps) {
            if (isMap(m)) take(m.items, true);
            else {
              this.#report(m ?? key, path, 'a merge key (<<) takes a mapping or a list of mappings', into);
              ok = false;
            }
          }
          continue;
        }
        const name = isScalar(key) ? String(key.value) : undefined;
        if (name === undefined) {
          this.#report(key, path, 'keys must be plain words', into);
          ok = false;
          continue;
        }
        if (seen.has(name)) {
          if (!merged) this.#report(key, join(path, name), `${name} is given twice`, into);
          continue;
        }
        seen.set(name, key);
        const propSchema = schema.properties?.[name];
        if (propSchema === undefined) {
          if (schema.additionalProperties === false) {
            const known = Object.keys(schema.properties ?? {});
            this.#report(key, join(path, name), `unknown key ${name} (known here: ${known.join(', ')})`, into);
            ok = false;
          }
          continue;
        }
        const v = this.#check(pair.value as Node | null, propSchema, join(path, name), depth + 1, into);
        if (v === INVALID) ok = false;
        else out[name] = v;
        values.set(name, (pair.value as Node | null)?.range?.[0] ?? key?.range?.[0] ?? 0);
      }
    };
    take(map.items, false);
    for (const name of schema.required ?? []) {
      if (!seen.has(name)) {
        this.#report(map, path, `${name} is missing`, into);
        ok = false;
      }
    }
    if (!ok) return INVALID;
    this.origins.set(out, { at: map.range?.[0] ?? 0, values });
    return out;
  }

  #array(seq: Node & { items: Node[] }, schema: SchemaNode, path: string, depth: number, into: NodeProblem[]): Checked {
    const out: unknown[] = [];
    const values = new Map<number, number>();
    let ok = true;
    const take = (items: readonly Node[], level: number): void => {
      for (const item of items) {
        const node = this.#deref(item, depth);
        if (schema['x-flatten'] && isSeq(node) && level < MAX_DEPTH) {
          take(node.items as Node[], level + 1);
          continue;
        }
        const v = schema.items
          ? this.#check(item, schema.items, `${path}[${out.length}]`, depth + 1, into)
          : plain(node);
        if (v === INVALID) ok = false;
        values.set(out.length, item.range?.[0] ?? 0);
        out.push(v);
      }
    };
    take(seq.items, 0);
    if (!ok) return INVALID;
    this.origins.set(out, { at: seq.range?.[0] ?? 0, values });
    return out;
  }

  #scalar(node: Scalar | null, schema: SchemaNode, path: string, into: NodeProblem[]): Checked {
    let value: unknown = node === null ? null : node.value;
    if (schema['x-release'] && (typeof value === 'number' || typeof value === 'bigint'))
      value = node?.source ?? String(value);
    if (schema['x-bigint'] && value !== null) {
      if (typeof value === 'string' && !/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) {
        this.#report(node, path, `${JSON.stringify(value)} is no integer (write 32 or 0x20)`, into);
        return INVALID;
      }
      return BigInt(value as string | bigint | number);
    }
    if (typeof value === 'bigint') {
      if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) {
        this.#report(node, path, `${value} is too large here`, into);
        return INVALID;
      }
      value = Number(value);
    }
    if (schema.const !== undefined && value !== schema.const) {
      this.#report(node, path, `expected ${JSON.stringify(schema.const)}, found ${JSON.stringify(value)}`, into);
      return INVALID;
    }
    if (schema.enum !== undefined && !schema.enum.includes(value)) {
      this.#report(node, path, `expected one of ${schema.enum.join(', ')}, found ${JSON.stringify(value)}`, into);
      return INVALID;
    }
    if (typeof value === 'string' && schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) {
      this.#report(node, path, `${JSON.stringify(value)} does not have the form ${schema.pattern}`, into);
      return INVALID;
    }
    if (typeof value === 'number') {
      if (schema.minimum !== undefined && value < schema.minimum) {
        this.#report(node, path, `${value} is below the least value here, ${schema.minimum}`, into);
        return INVALID;
      }
      if (schema.maximum !== undefined && value > schema.maximum) {
        this.#report(node, path, `${value} is above the greatest value here, ${schema.maximum}`, into);
        return INVALID;
      }
    }
    return value;
  }
}

type Kind = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';

function nodeKind(node: Node | null): Kind {
  if (node === null) return 'null';
  if (isMap(node)) return 'object';
  if (isSeq(node)) return 'array';
  const v = (node as Scalar).value;
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint') return 'integer';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'boolean') return 'boolean';
  return 'string';
}

function fits(type: string, kind: Kind): boolean {
  return type === kind || (type === 'number' && kind === 'integer');
}

function typeWords(type: string): string {
  return type === 'object'
    ? 'a mapping'
    : type === 'array'
      ? 'a list'
      : type === 'null'
        ? 'nothing (null)'
        : `a ${type}`;
}

function kindWords(kind: Kind): string {
  return kind === 'null' ? 'nothing' : typeWords(kind);
}

/** The values of the key that tells a oneOf's object branches apart (`action`, `kind`). */
function discriminatorValues(branch: SchemaNode, resolve: (s: SchemaNode) => SchemaNode): string[] {
  for (const key of ['kind', 'action']) {
    const s = branch.properties?.[key];
    if (s === undefined) continue;
    const r = resolve(s);
    if (r.const !== undefined) return [`${key}: ${String(r.const)}`];
    if (r.enum !== undefined) return r.enum.map((e) => `${key}: ${String(e)}`);
  }
  return [];
}

function discriminatorFits(branch: SchemaNode, node: Node | null, resolve: (s: SchemaNode) => SchemaNode): boolean {
  if (!isMap(node)) return false;
  for (const key of ['kind', 'action']) {
    const s = branch.properties?.[key];
    if (s === undefined) continue;
    const r = resolve(s);
    const given = node.get(key);
    return r.const !== undefined ? given === r.const : r.enum?.includes(given) === true;
  }
  return false;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function plain(node: Node | null): unknown {
  return node === null ? null : (node.toJSON() as unknown);
}
