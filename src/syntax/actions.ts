/**
 * Action list text → typed Action nodes, following `ofpacts_parse` in OVS's lib/ofp-actions.c.
 * Never throws: every problem goes to the sink with its offset in the line, and text that
 * cannot be understood is kept as an `unknown` node.
 */
import type {
  Action,
  ActionOf,
  BundleAlgorithm,
  ControllerReason,
  CtAction,
  EncapHeader,
  FieldWriteSpelling,
  HashFields,
  MultipathAlgorithm,
  NatAction,
  NatRange,
  NshTlv,
  PerActionKind,
  SampleAction,
  Subfield,
} from '../model/actions.ts';
import { type FieldDef, fieldByName, fieldBySubfieldName } from '../model/fields.ts';
import type { ConjunctionVisitor, Match } from '../model/flow.ts';
import type { PortMap, PortRef } from '../model/ports.ts';
import type { ProblemSink } from '../model/problems.ts';
import type { TableRef } from '../model/tables.ts';
import { ones, parseIpv4, parseIpv6, parseMac } from '../model/values.ts';
import { type ActionToken, parseHexBytes, parsePortRef, parseSmall, scanActionTokens } from './action-args.ts';
import { tableRefOf } from './interned.ts';
import { parseUint } from './numbers.ts';
import { parseFieldValue } from './field-value.ts';
import { parseLearn } from './learn.ts';
import { parseSubfield } from './subfield.ts';
import { ownEntry } from '../model/own-key.ts';
import { append } from '../model/append.ts';

export interface ActionContext {
  readonly sink: ProblemSink;
  readonly portMap?: PortMap;
  readonly match?: Match;
  /** A group bucket: an action list only, OpenFlow instructions are not allowed. */
  readonly bucket?: boolean;
}

/** Parser state for one action list (nested lists get their own). */
interface Env {
  readonly text: string;
  readonly ctx: ActionContext;
  /** Whether the packet carries a VLAN tag at this point (from the match, then push/pop). */
  hasVlan: boolean;
  /** Inside ct(exec(...)): ct_mark/ct_label may be written. */
  readonly inCt: boolean;
  /** Shared by nested lists: set when the result depends on the flow's match. */
  readonly reads: { match: boolean };
  /** Action lists this one is nested in (clone, ct exec, write_actions). */
  readonly depth: number;
}

/** OVS refuses actions nested deeper (MAX_OFPACT_PARSE_DEPTH); so each level's parse stays bounded. */
export const MAX_ACTION_NESTING = 100;

/** Thrown inside one action's parser only; caught per action and turned into a problem. */
class ActionError {
  readonly message: string;
  readonly offset: number;
  readonly length: number;
  /** Unknown action names are only warned about: a newer OVS may know them. */
  readonly severity: 'error' | 'warning';
  constructor(message: string, offset: number, length: number, severity: 'error' | 'warning' = 'error') {
    this.message = message;
    this.offset = offset;
    this.length = length;
    this.severity = severity;
  }
}

function fail(tok: ActionToken, message: string): never {
  throw new ActionError(message, tok.argOffset, Math.max(1, tok.arg?.length ?? tok.name.length));
}

function argOf(tok: ActionToken): string {
  if (tok.arg === undefined) fail(tok, `${tok.name}: missing argument`);
  return tok.arg;
}

function num(tok: ActionToken, text: string, max: number, what: string): number {
  const v = parseSmall(text, max);
  if (v === undefined) fail(tok, `${text}: invalid ${what}`);
  return v;
}

function subfield(tok: ActionToken, text: string): Subfield {
  const r = parseSubfield(text);
  if (!r.ok) fail(tok, r.error);
  return r.subfield;
}

function tableRef(tok: ActionToken, text: string): TableRef {
  const t = text.trim();
  const n = parseSmall(t, 255);
  if (n !== undefined) return tableRefOf(n);
  if (/^[A-Za-z][A-Za-z0-9_]*$/.test(t)) return { kind: 'name', name: t };
  const quoted = /^"(.*)"$/.exec(t);
  if (quoted) return { kind: 'name', name: quoted[1]! };
  fail(tok, `${text}: invalid table`);
}

function portRef(tok: ActionToken, env: Env, text: string, what: string): PortRef {
  const p = parsePortRef(text, env.ctx.portMap);
  if (!p) fail(tok, `${text}: ${what}`);
  return p;
}

function matchValue(env: Env, name: string): { value: bigint; mask: bigint } | undefined {
  env.reads.match = true;
  return env.ctx.match?.fields.find((f) => f.field.name === name);
}

/** Whether the packet carries a VLAN tag before this action (the match decides, unless pushed). */
function flowHasVlan(env: Env): boolean {
  env.reads.match = true;
  return env.hasVlan;
}

function field(name: string): FieldDef {
  const f = fieldByName(name);
  if (!f) throw new Error(`field registry lacks ${name}`);
  return f;
}

function setField(f: FieldDef, value: bigint, written: FieldWriteSpelling, mask = ones(f.bits)): Action {
  return { kind: 'set_field', field: f, value: value & mask, mask, written };
}

function checkWritable(tok: ActionToken, env: Env, f: FieldDef): void {
  if (!f.writable) fail(tok, `destination field ${f.name} is not writable`);
  if (!env.inCt && (f.name === 'ct_mark' || f.name === 'ct_label'))
    fail(tok, 'cannot set CT fields outside of ct action');
}

function parseSetField(tok: ActionToken, env: Env): Action {
  const arg = argOf(tok);
  const arrow = arg.lastIndexOf('->');
  if (arrow < 0) fail(tok, `${arg}: missing \`->'`);
  const name = arg.slice(arrow + 2).trim();
  const f = fieldByName(name);
  if (!f) fail(tok, `${name} is not a valid OXM field name`);
  checkWritable(tok, env, f);
  const r = parseFieldValue(f, arg.slice(0, arrow).trim(), env.ctx.portMap);
  if (!r.ok) fail(tok, r.error);
  return setField(f, r.value, 'set_field', r.mask);
}

function parseLoad(tok: ActionToken, env: Env): Action {
  const arg = argOf(tok);
  const arrow = arg.indexOf('->');
  if (arrow < 0) fail(tok, `${arg}: missing \`->'`);
  const dst = subfield(tok, arg.slice(arrow + 2));
  checkWritable(tok, env, dst.field);
  const valueText = arg.slice(0, arrow).trim();
  const v = parseUint(valueText, ones(128));
  if (v === undefined) fail(tok, `${valueText}: invalid value`);
  if (v > ones(dst.bits)) fail(tok, `${arg}: value ${valueText} does not fit into ${dst.bits} bits`);
  const shift = BigInt(dst.start);
  return setField(dst.field, v << shift, 'load', ones(dst.bits) << shift);
}

function parseMove(tok: ActionToken, env: Env): Action {
  const arg = argOf(tok);
  const arrow = arg.indexOf('->');
  if (arrow < 0) fail(tok, `${arg}: missing \`->'`);
  const src = subfield(tok, arg.slice(0, arrow));
  const dst = subfield(tok, arg.slice(arrow + 2));
  checkWritable(tok, env, dst.field);
  if (src.bits !== dst.bits) {
    fail(tok, `${arg}: source field is ${src.bits} bits wide but destination is ${dst.bits} bits wide`);
  }
  return { kind: 'move', src, dst };
}

/** `mod_tp_src/dst` write the L4 port of whatever protocol the flow matches. */
function l4Field(env: Env, dir: 'src' | 'dst'): FieldDef {
  const proto = matchValue(env, 'nw_proto')?.value;
  const l4 = proto === 17n ? 'udp' : proto === 132n ? 'sctp' : 'tcp';
  return field(`${l4}_${dir}`);
}

function parseNative(tok: ActionToken, env: Env, written: FieldWriteSpelling): Action {
  const arg = argOf(tok).trim();
  switch (written) {
    case 'mod_dl_src':
    case 'mod_dl_dst': {
      const mac = parseMac(arg);
      if (mac === undefined) fail(tok, `${arg}: invalid Ethernet address`);
      return setField(field(written === 'mod_dl_src' ? 'eth_src' : 'eth_dst'), mac, written);
    }
    case 'mod_nw_src':
    case 'mod_nw_dst': {
      const ip = parseIpv4(arg);
      if (ip === undefined) fail(tok, `${arg}: invalid IP address`);
      return setField(field(written === 'mod_nw_src' ? 'ip_src' : 'ip_dst'), ip, written);
    }
    case 'mod_nw_tos': {
      const tos = num(tok, arg, 255, 'TOS');
      if (tos & 3) fail(tok, `${arg}: not a valid TOS`);
      return setField(field('ip_dscp'), BigInt(tos >> 2), written);
    }
    case 'mod_nw_ecn': {
      const ecn = num(tok, arg, 3, 'ECN');
      return setField(field('nw_ecn'), BigInt(ecn), written);
    }
    case 'mod_tp_src':
    case 'mod_tp_dst':
      return setField(
        l4Field(env, written === 'mod_tp_src' ? 'src' : 'dst'),
        BigInt(num(tok, arg, 0xffff, 'port')),
        written,
      );
    case 'set_tunnel':
    case 'set_tunnel64': {
      const v = parseUint(arg, ones(64));
      if (v === undefined) fail(tok, `${arg}: invalid tunnel id`);
      return setField(field('tun_id'), v, written === 'set_tunnel' && v > 0xffffffffn ? 'set_tunnel64' : written);
    }
    case 'set_mpls_label':
      return setField(field('mpls_label'), BigInt(num(tok, arg, 0xfffff, 'MPLS label')), written);
    case 'set_mpls_tc':
      return setField(field('mpls_tc'), BigInt(num(tok, arg, 7, 'MPLS TC')), written);
    case 'set_field':
    case 'load':
      return fail(tok, `${tok.name}: internal spelling error`);
  }
}

/** `controller` without arguments, also what output to the CONTROLLER port means. */
const DEFAULT_CONTROLLER: ActionOf<'controller'> = {
  kind: 'controller',
  maxLen: 0xffff,
  reason: 'action',
  id: 0,
  pause: false,
};

function parseController(tok: ActionToken): Action {
  const base = DEFAULT_CONTROLLER;
  const arg = tok.arg?.trim() ?? '';
  if (arg === '') return base;
  if (!arg.includes('=') && !/[a-z]/i.test(arg)) return { ...base, maxLen: num(tok, arg, 0xffff, 'max_len') };
  let out: ActionOf<'controller'> = base;
  for (const t of scanActionTokens(tok.arg ?? '', 0, (tok.arg ?? '').length)) {
    const key = ownEntry(CONTROLLER_KEYS, t.name) ?? fail(tok, `${t.name}: unknown key in controller action`);
    out = { ...out, ...key(tok, t.arg ?? '') };
  }
  return out;
}

/** The keys of `controller(...)`, each with what its value sets. */
const CONTROLLER_KEYS: Readonly<Record<string, (tok: ActionToken, v: string) => Partial<ActionOf<'controller'>>>> = {
  reason: (tok, v) => {
    if (!CONTROLLER_REASONS.includes(v as ControllerReason)) fail(tok, `unknown reason "${v}"`);
    return { reason: v as ControllerReason };
  },
  max_len: (tok, v) => ({ maxLen: num(tok, v, 0xffff, 'max_len') }),
  id: (tok, v) => ({ id: num(tok, v, 0xffff, 'controller id') }),
  userdata: (tok, v) => ({ userdata: parseHexBytes(v) ?? fail(tok, `${v}: bad hex digit in userdata`) }),
  pause: () => ({ pause: true }),
  meter_id: (tok, v) => ({ meterId: num(tok, v, 0xffffffff, 'meter id') }),
};

const CONTROLLER_REASONS: readonly ControllerReason[] = [
  'no_match',
  'action',
  'invalid_ttl',
  'action_set',
  'group',
  'packet_out',
];

function parseOutput(tok: ActionToken, env: Env): Action {
  const arg = argOf(tok);
  if (arg.includes('port') && arg.includes('max_len')) {
    let port: PortRef | undefined;
    let maxLen: number | undefined;
    for (const t of scanActionTokens(arg, 0, arg.length)) {
      if (t.name === 'port') {
        port = parsePortRef(t.arg ?? '', env.ctx.portMap);
        if (!port) fail(tok, `output to unknown truncate port: ${t.arg ?? ''}`);
        if (port.kind === 'reserved' && port.name !== 'LOCAL' && port.name !== 'IN_PORT') {
          fail(tok, `output to unsupported truncate port: ${port.name}`);
        }
      } else if (t.name === 'max_len') maxLen = num(tok, t.arg ?? '', 0xffffffff, 'max_len');
      else fail(tok, `${t.name}: invalid key in output action`);
    }
    if (!port || maxLen === undefined) fail(tok, 'output action needs both port and max_len');
    return { kind: 'output', port, maxLen };
  }
  // As in OVS: `[` means a subfield; then port numbers and reserved names; then field names.
  const known = parsePortRef(arg, env.ctx.portMap, true);
  if (arg.includes('[') || (!known && fieldBySubfieldName(arg.trim()))) {
    return { kind: 'output_field', src: subfield(tok, arg) };
  }
  return portAction(known ?? portRef(tok, env, arg, 'output to unknown port'));
}

function portAction(port: PortRef): Action {
  if (port.kind === 'reserved' && port.name === 'CONTROLLER') return DEFAULT_CONTROLLER;
  return { kind: 'output', port };
}

function parseEnqueue(tok: ActionToken, env: Env): Action {
  const arg = argOf(tok);
  const parts = arg.split(/[:,]/);
  if (parts.length !== 2) fail(tok, `${arg}: syntax error on enqueue action`);
  return {
    kind: 'enqueue',
    port: portRef(tok, env, parts[0]!, 'enqueue to unknown port'),
    queue: num(tok, parts[1]!, 0xffffffff, 'queue'),
  };
}

function parseResubmit(tok: ActionToken, env: Env): Action {
  const arg = argOf(tok);
  if (!tok.paren && !arg.includes(','))
    return { kind: 'resubmit', port: portRef(tok, env, arg, 'resubmit to unknown port'), ct: false };
  const parts = arg.split(',').map((s) => s.trim());
  if (parts.length > 3) fail(tok, `${arg}: too many arguments to resubmit`);
  const [portText = '', tableText = '', ctText] = parts;
  const port = portText === '' ? undefined : portRef(tok, env, portText, 'resubmit to unknown port');
  const table = tableText === '' ? undefined : tableRef(tok, tableText);
  if (ctText !== undefined && ctText !== 'ct') fail(tok, `${ctText}: unknown resubmit option`);
  if (!port && !table) fail(tok, 'at least one "in_port" or "table" must be specified on resubmit');
  return {
    kind: 'resubmit',
    ...(port && !(port.kind === 'reserved' && port.name === 'IN_PORT') ? { port } : {}),
    ...(table ? { table } : {}),
    ct: ctText === 'ct',
  };
}

function parseNatRange(tok: ActionToken, text: string): NatRange {
  let rest = text;
  let family: 4 | 6 | undefined;
  const addr = (): bigint => {
    let v: bigint | undefined;
    if (rest.startsWith('[')) {
      const close = rest.indexOf(']');
      v = parseIpv6(rest.slice(1, close));
      if (family === 4 || v === undefined) fail(tok, `${text}: invalid IPv6 address in nat range`);
      family = 6;
      rest = rest.slice(close + 1);
      return v;
    }
    const m4 = /^\d+\.\d+\.\d+\.\d+/.exec(rest);
    if (m4 && family !== 6) {
      v = parseIpv4(m4[0]);
      if (v === undefined) fail(tok, `${text}: invalid IP address in nat range`);
      family = 4;
      rest = rest.slice(m4[0].length);
      return v;
    }
    const m6 = /^[0-9a-fA-F:]+/.exec(rest);
    v = m6 ? parseIpv6(m6[0]) : undefined;
    if (!m6 || v === undefined || family === 4) fail(tok, `${text}: invalid address in nat range`);
    family = 6;
    rest = rest.slice(m6[0].length);
    return v;
  };
  const addrMin = addr();
  const addrMax = rest.startsWith('-') ? ((rest = rest.slice(1)), addr()) : undefined;
  let portMin: number | undefined;
  let portMax: number | undefined;
  if (rest.startsWith(':')) {
    const m = /^:(\d+)(?:-(\d+))?$/.exec(rest);
    if (!m) fail(tok, `${text}: invalid port range in nat`);
    portMin = num(tok, m[1]!, 0xffff, 'port');
    if (m[2] !== undefined) portMax = num(tok, m[2], 0xffff, 'port');
    rest = '';
  }
  if (rest !== '') fail(tok, `${text}: garbage in nat range`);
  return {
    family: family ?? 4,
    addrMin,
    ...(addrMax !== undefined && addrMax !== addrMin ? { addrMax } : {}),
    ...(portMin !== undefined ? { portMin } : {}),
    ...(portMax !== undefined && portMax !== portMin ? { portMax } : {}),
  };
}

/**
 * An action being filled in by its parser. Assigning a property keeps the key order the finished
 * action has always had (defaults first, then options as written), which JSON output shows.
 */
type Draft<T> = { -readonly [K in keyof T]: T[K] };

function parseNat(tok: ActionToken): NatAction {
  const nat: Draft<NatAction> = { kind: 'nat', persistent: false, hash: false, random: false };
  const arg = tok.arg ?? '';
  for (const t of scanActionTokens(arg, 0, arg.length)) {
    switch (t.name) {
      case 'src':
      case 'dst':
        if (nat.direction) fail(tok, 'nat: only one of "src" or "dst" may be specified');
        {
          const range = t.arg !== undefined && t.arg !== '' ? parseNatRange(tok, t.arg) : undefined;
          // OVS treats an all-zero address without ports as no range at all.
          const empty = !range || (range.addrMin === 0n && range.addrMax === undefined && range.portMin === undefined);
          nat.direction = t.name;
          if (!empty) nat.range = range;
          break;
        }
      case 'persistent':
      case 'hash':
      case 'random':
        nat[t.name] = true;
        break;
      default:
        fail(tok, `${t.name}: invalid nat option`);
    }
  }
  if (nat.hash && nat.random) fail(tok, 'nat: both "hash" and "random" are specified');
  return nat;
}

const ALG_PORTS: Readonly<Record<string, number>> = { ftp: 21, tftp: 69 };

function parseCt(tok: ActionToken, env: Env): CtAction {
  const ct: Draft<CtAction> = { kind: 'ct', commit: false, force: false, actions: [] };
  const actions: Action[] = [];
  const arg = tok.arg ?? '';
  const base = tok.argOffset;
  for (const t of scanActionTokens(env.text, base, base + arg.length)) {
    const v = t.arg ?? '';
    switch (t.name) {
      case 'commit':
        ct.commit = true;
        break;
      case 'force':
        ct.force = true;
        break;
      case 'table':
        ct.table = tableRef(t, v);
        break;
      case 'zone': {
        const n = parseSmall(v, 0xffff);
        if (n !== undefined) {
          if (ct.zone?.kind !== 'field') ct.zone = { kind: 'value', value: n };
        } else {
          const src = subfield(t, v);
          if (src.bits !== 16) fail(t, `${v}: zone subfield must be 16 bits wide`);
          ct.zone = { kind: 'field', src };
        }
        break;
      }
      case 'alg': {
        const port = ownEntry(ALG_PORTS, v) ?? parseSmall(v, 0xffff);
        if (port === undefined) fail(t, `${v}: unknown alg`);
        ct.alg = port;
        break;
      }
      case 'nat':
        actions.push(parseNat(t));
        break;
      case 'exec': {
        const nested = parseList(env.text, t.argOffset, t.argOffset + v.length, { ...env, inCt: true }, 'exec');
        for (const a of nested) {
          if (a.kind !== 'set_field' && a.kind !== 'move' && a.kind !== 'unknown') {
            env.ctx.sink.error(`ct action doesn't support nested action ${a.kind}`, t.argOffset, v.length);
          }
        }
        append(actions, nested);
        break;
      }
      default:
        fail(t, `${t.name}: invalid argument to "ct" action`);
    }
  }
  ct.actions = actions;
  const hasExec = actions.some((a) => a.kind !== 'nat');
  if (hasExec && !ct.commit) fail(tok, 'ct: "exec" requires "commit"');
  if (ct.force && !ct.commit) fail(tok, 'ct: "force" requires "commit"');
  return ct;
}

const HASH_FIELDS: readonly HashFields[] = [
  'eth_src',
  'symmetric_l4',
  'symmetric_l3l4',
  'symmetric_l3l4+udp',
  'nw_src',
  'nw_dst',
  'symmetric_l3',
];
const MULTIPATH_ALGS: readonly MultipathAlgorithm[] = ['modulo_n', 'hash_threshold', 'hrw', 'iter_hash'];
const BUNDLE_ALGS: readonly BundleAlgorithm[] = ['active_backup', 'hrw'];

function hashFields(tok: ActionToken, arg: string, text: string): HashFields {
  if (!HASH_FIELDS.includes(text as HashFields)) fail(tok, `${arg}: unknown fields \`${text}'`);
  return text as HashFields;
}

function parseMultipath(tok: ActionToken): Action {
  const arg = argOf(tok);
  const parts = arg.split(',').map((s) => s.trim());
  if (parts.length !== 6) fail(tok, `${arg}: not enough arguments to multipath action`);
  const [fields, basis, alg, nLinks, linkArg, dst] = parts as [string, string, string, string, string, string];
  if (!MULTIPATH_ALGS.includes(alg as MultipathAlgorithm)) fail(tok, `${arg}: unknown algorithm \`${alg}'`);
  const n = num(tok, nLinks, 0xffffffff, 'number of links');
  if (n < 1 || n > 65536) fail(tok, `${arg}: n_links ${n} is not in valid range 1 to 65536`);
  const dstSf = subfield(tok, dst);
  if (2 ** Math.min(dstSf.bits, 31) < n)
    fail(
      tok,
      `${arg}: ${dstSf.bits}-bit destination field has ${2 ** dstSf.bits} possible values, less than specified n_links ${n}`,
    );
  return {
    kind: 'multipath',
    fields: hashFields(tok, arg, fields),
    basis: num(tok, basis, 0xffff, 'basis'),
    algorithm: alg as MultipathAlgorithm,
    nLinks: n,
    arg: num(tok, linkArg, 0xffffffff, 'argument'),
    dst: dstSf,
  };
}

function parseBundle(tok: ActionToken, env: Env, load: boolean): Action {
  const arg = argOf(tok);
  const parts = arg.split(',').map((s) => s.trim());
  const fixed = load ? 6 : 5;
  if (parts.length < fixed) fail(tok, `${arg}: not enough arguments to bundle action`);
  const [fields = '', basis = '', alg = '', type = ''] = parts;
  const membersAt = fixed - 1;
  const delim = parts[membersAt]!;
  const colon = delim.indexOf(':');
  const delimName = colon < 0 ? delim : delim.slice(0, colon);
  if (delimName !== 'members' && delimName !== 'slaves') {
    fail(tok, `${arg}: missing member delimiter, expected \`members', got \`${delimName}'`);
  }
  const memberTexts = [colon < 0 ? '' : delim.slice(colon + 1), ...parts.slice(membersAt + 1)]
    .map((s) => s.replace(/^\[|\]$/g, ''))
    .filter((s) => s !== '');
  const h = hashFields(tok, arg, fields);
  if (!BUNDLE_ALGS.includes(alg as BundleAlgorithm)) fail(tok, `${arg}: unknown algorithm \`${alg}'`);
  if (type !== 'ofport') fail(tok, `${arg}: unknown member_type \`${type}'`);
  return {
    kind: 'bundle',
    fields: h,
    basis: num(tok, basis, 0xffff, 'basis'),
    algorithm: alg as BundleAlgorithm,
    members: memberTexts.map((m) => portRef(tok, env, m, 'unknown port')),
    ...(load ? { dst: subfield(tok, parts[4]!) } : {}),
  };
}

function idOrField(tok: ActionToken, text: string): SampleAction['obsDomain'] {
  const n = parseSmall(text, 0xffffffff);
  return n !== undefined ? { kind: 'value', value: n } : { kind: 'field', src: subfield(tok, text) };
}

function parseSample(tok: ActionToken, env: Env): Action {
  const arg = argOf(tok);
  let probability: number | undefined;
  let sample: Omit<SampleAction, 'probability'> = {
    kind: 'sample',
    collectorSetId: 0,
    obsDomain: { kind: 'value', value: 0 },
    obsPoint: { kind: 'value', value: 0 },
  };
  for (const t of scanActionTokens(arg, 0, arg.length)) {
    const v = t.arg ?? '';
    switch (t.name) {
      case 'probability':
        probability = num(tok, v, 0xffff, 'probability');
        if (probability === 0) fail(tok, 'invalid probability value "0"');
        break;
      case 'collector_set_id':
        sample = { ...sample, collectorSetId: num(tok, v, 0xffffffff, 'collector_set_id') };
        break;
      case 'obs_domain_id':
        sample = { ...sample, obsDomain: idOrField(tok, v) };
        break;
      case 'obs_point_id':
        sample = { ...sample, obsPoint: idOrField(tok, v) };
        break;
      case 'sampling_port':
        sample = { ...sample, samplingPort: portRef(tok, env, v, 'unknown port') };
        break;
      case 'ingress':
      case 'egress':
        sample = { ...sample, direction: t.name };
        break;
      default:
        fail(tok, `invalid key "${t.name}" in "sample" argument`);
    }
  }
  if (probability === undefined) fail(tok, 'non-zero "probability" must be specified on sample');
  return { ...sample, probability };
}

function parseEncap(tok: ActionToken): Action {
  const arg = argOf(tok).trim().replace(/^nsh$/, 'nsh()');
  if (arg === 'ethernet' || arg === 'mpls' || arg === 'mpls_mc') return { kind: 'encap', header: { kind: arg } };
  const m = /^nsh\((.*)\)$/.exec(arg);
  if (!m) fail(tok, `${arg}: encap type not supported`);
  let mdType: number | undefined;
  const tlvs: NshTlv[] = [];
  const inner = m[1]!;
  for (const t of scanActionTokens(inner, 0, inner.length)) {
    if (t.name === 'md_type') mdType = num(tok, t.arg ?? '', 2, 'md_type');
    else if (t.name === 'tlv') {
      const [cls = '', type = '', value = ''] = (t.arg ?? '').split(',').map((s) => s.trim());
      const v = parseUint(value, ones(128));
      if (v === undefined || !/^0x/i.test(value)) fail(tok, `${value}: invalid tlv value`);
      tlvs.push({
        tlvClass: num(tok, cls, 0xffff, 'tlv class'),
        type: num(tok, type, 0xff, 'tlv type'),
        value: v,
        length: Math.ceil((value.length - 2) / 2),
      });
    } else fail(tok, `${t.name}: invalid nsh property`);
  }
  const header: EncapHeader = { kind: 'nsh', ...(mdType === undefined ? {} : { mdType }), tlvs };
  return { kind: 'encap', header };
}

function parseDecap(tok: ActionToken): Action {
  const arg = (tok.arg ?? '').trim();
  if (arg === '') return { kind: 'decap' };
  const m = /^packet_type\(ns=(\w+),type=(\w+)\)$/.exec(arg.replace(/\s/g, ''));
  if (!m) fail(tok, `${arg}: invalid decap argument`);
  return {
    kind: 'decap',
    packetType: { ns: num(tok, m[1]!, 0xffff, 'namespace'), type: num(tok, m[2]!, 0xffff, 'type') },
  };
}

function parseDecTtl(tok: ActionToken): Action {
  const arg = (tok.arg ?? '').trim();
  if (arg === '') return { kind: 'dec_ttl', ids: [] };
  return { kind: 'dec_ttl', ids: arg.split(',').map((s) => num(tok, s.trim(), 0xffff, 'controller id')) };
}

function parseFinTimeout(tok: ActionToken): Action {
  const arg = argOf(tok);
  let out: ActionOf<'fin_timeout'> = { kind: 'fin_timeout' };
  for (const t of scanActionTokens(arg, 0, arg.length)) {
    const v = num(tok, t.arg ?? '', 0xffff, t.name);
    if (t.name === 'idle_timeout') out = { ...out, idleTimeout: v };
    else if (t.name === 'hard_timeout') out = { ...out, hardTimeout: v };
    else fail(tok, `invalid key '${t.name}' in 'fin_timeout' argument`);
  }
  return out;
}

function parseConjunction(tok: ActionToken): Action {
  const arg = argOf(tok);
  const m = /^\s*(\w+)\s*,\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(arg);
  if (!m) fail(tok, `"conjunction" syntax is "conjunction(id,i/n)"`);
  const id = num(tok, m[1]!, 0xffffffff, 'conjunction id');
  const clause = Number(m[2]);
  const nClauses = Number(m[3]);
  if (nClauses < 2 || nClauses > 64) fail(tok, `number of conjunctive clauses must be between 2 and 64`);
  if (clause < 1 || clause > nClauses)
    fail(tok, `clause index must be positive and no greater than the number of clauses`);
  return { kind: 'conjunction', id, clause, nClauses };
}

function parseCheckPktLarger(tok: ActionToken): Action {
  const arg = argOf(tok);
  if (!tok.tail.startsWith('->')) fail(tok, 'check_pkt_larger: missing "->DST"');
  const dst = subfield(tok, tok.tail.slice(2));
  if (dst.bits !== 1) fail(tok, 'check_pkt_larger: destination must be a single bit');
  return { kind: 'check_pkt_larger', length: num(tok, arg, 0xffff, 'packet length'), dst };
}

function parseWriteMetadata(tok: ActionToken): Action {
  const arg = argOf(tok);
  const [v, m] = arg.split('/');
  const value = parseUint(v ?? '', ones(64));
  const mask = m === undefined ? ones(64) : parseUint(m, ones(64));
  if (value === undefined || mask === undefined) fail(tok, `${arg}: invalid metadata`);
  return { kind: 'write_metadata', value, mask };
}

function parseVlanVid(tok: ActionToken, env: Env, push: boolean): Action {
  const vid = num(tok, argOf(tok), 0xfff, 'VLAN VID');
  const a: Action = { kind: 'set_vlan_vid', vid, pushIfUntagged: push, flowHasVlan: flowHasVlan(env) };
  if (push) env.hasVlan = true;
  return a;
}

function parseVlanPcp(tok: ActionToken, env: Env, push: boolean): Action {
  const pcp = num(tok, argOf(tok), 7, 'VLAN priority');
  const a: Action = { kind: 'set_vlan_pcp', pcp, pushIfUntagged: push, flowHasVlan: flowHasVlan(env) };
  if (push) env.hasVlan = true;
  return a;
}

function ethertype(tok: ActionToken): number {
  return num(tok, argOf(tok), 0xffff, 'ethertype');
}

type Parser = (tok: ActionToken, env: Env) => Action;

const simple =
  (a: Action): Parser =>
  () =>
    a;

/**
 * The keywords each action kind is read from. A kind without its entry does not compile; an empty
 * entry says where else the kind comes from.
 */
const PARSERS_BY_KIND: PerActionKind<Readonly<Record<string, Parser>>> = {
  output: { output: parseOutput }, // also a bare port name or number (parseOne)
  output_field: {}, // output:FIELD[] (parseOutput)
  controller: { controller: (t) => parseController(t) },
  enqueue: { enqueue: parseEnqueue },
  group: { group: (t) => ({ kind: 'group', id: num(t, argOf(t), 0xffffffff, 'group id') }) },
  set_field: {
    set_field: parseSetField,
    load: parseLoad,
    ...Object.fromEntries(
      (
        [
          'mod_dl_src',
          'mod_dl_dst',
          'mod_nw_src',
          'mod_nw_dst',
          'mod_nw_tos',
          'mod_nw_ecn',
          'mod_tp_src',
          'mod_tp_dst',
          'set_tunnel',
          'set_tunnel64',
          'set_mpls_label',
          'set_mpls_tc',
        ] as const
      ).map((w): [string, Parser] => [w, (t, e) => parseNative(t, e, w)]),
    ),
  },
  move: { move: parseMove },
  set_vlan_vid: {
    mod_vlan_vid: (t, e) => parseVlanVid(t, e, true),
    set_vlan_vid: (t, e) => parseVlanVid(t, e, false),
  },
  set_vlan_pcp: {
    mod_vlan_pcp: (t, e) => parseVlanPcp(t, e, true),
    set_vlan_pcp: (t, e) => parseVlanPcp(t, e, false),
  },
  strip_vlan: {
    strip_vlan: (_, e) => ((e.hasVlan = false), { kind: 'strip_vlan' }),
    pop_vlan: (_, e) => ((e.hasVlan = false), { kind: 'strip_vlan' }),
  },
  push_vlan: {
    push_vlan: (t, e) => {
      const et = ethertype(t);
      if (et !== 0x8100 && et !== 0x88a8) fail(t, `${argOf(t)}: not a valid VLAN ethertype`);
      e.hasVlan = true;
      return { kind: 'push_vlan', ethertype: et };
    },
  },
  push_mpls: { push_mpls: (t) => ({ kind: 'push_mpls', ethertype: ethertype(t) }) },
  pop_mpls: { pop_mpls: (t) => ({ kind: 'pop_mpls', ethertype: ethertype(t) }) },
  set_mpls_ttl: { set_mpls_ttl: (t) => ({ kind: 'set_mpls_ttl', ttl: num(t, argOf(t), 255, 'TTL') }) },
  dec_mpls_ttl: { dec_mpls_ttl: simple({ kind: 'dec_mpls_ttl' }) },
  set_ip_ttl: { mod_nw_ttl: (t) => ({ kind: 'set_ip_ttl', ttl: num(t, argOf(t), 255, 'TTL') }) },
  dec_ttl: { dec_ttl: parseDecTtl },
  encap: { encap: parseEncap },
  decap: { decap: parseDecap },
  dec_nsh_ttl: { dec_nsh_ttl: simple({ kind: 'dec_nsh_ttl' }) },
  set_queue: { set_queue: (t) => ({ kind: 'set_queue', queue: num(t, argOf(t), 0xffffffff, 'queue') }) },
  pop_queue: { pop_queue: simple({ kind: 'pop_queue' }) },
  delete_field: {
    delete_field: (t) => {
      const f = fieldByName(argOf(t).trim());
      if (!f) fail(t, `${argOf(t)}: unknown field`);
      return { kind: 'delete_field', field: f };
    },
  },
  fin_timeout: { fin_timeout: parseFinTimeout },
  stack_push: { push: (t) => ({ kind: 'stack_push', src: subfield(t, argOf(t)) }) },
  stack_pop: {
    pop: (t, e) => {
      const dst = subfield(t, argOf(t));
      checkWritable(t, e, dst.field);
      return { kind: 'stack_pop', dst };
    },
  },
  resubmit: { resubmit: parseResubmit },
  goto_table: { goto_table: (t) => ({ kind: 'goto_table', table: tableRef(t, argOf(t)) }) },
  ct: { ct: parseCt },
  nat: {}, // only inside ct(…) (parseCt)
  ct_clear: { ct_clear: simple({ kind: 'ct_clear' }) },
  learn: { learn: (t, e) => parseLearn(t, e.ctx.portMap, fail) },
  conjunction: { conjunction: parseConjunction },
  note: {
    note: (t) => {
      const bytes = parseHexBytes(t.arg ?? '');
      if (!bytes) fail(t, "bad hex digit in `note' argument");
      return { kind: 'note', bytes };
    },
  },
  clone: { clone: (t, e) => ({ kind: 'clone', actions: nestedList(t, e, 'clone') }) },
  exit: { exit: simple({ kind: 'exit' }) },
  multipath: { multipath: (t) => parseMultipath(t) },
  bundle: { bundle: (t, e) => parseBundle(t, e, false), bundle_load: (t, e) => parseBundle(t, e, true) },
  sample: { sample: parseSample },
  check_pkt_larger: { check_pkt_larger: (t) => parseCheckPktLarger(t) },
  meter: { meter: (t) => ({ kind: 'meter', id: num(t, argOf(t), 0xffffffff, 'meter id') }) },
  clear_actions: { clear_actions: simple({ kind: 'clear_actions' }) },
  write_actions: { write_actions: (t, e) => ({ kind: 'write_actions', actions: nestedList(t, e, 'write_actions') }) },
  write_metadata: { write_metadata: (t) => parseWriteMetadata(t) },
  unroll_xlate: {
    unroll_xlate: (t) => {
      const arg = argOf(t);
      const m = /^\s*table=(\d+),\s*cookie=(\d+)\s*$/.exec(arg);
      if (!m) fail(t, `${arg}: invalid unroll_xlate`);
      return { kind: 'unroll_xlate', table: Number(m[1]), cookie: BigInt(m[2]!) };
    },
  },
  debug_recirc: { debug_recirc: simple({ kind: 'debug_recirc' }) },
  debug_slow: { debug_slow: simple({ kind: 'debug_slow' }) },
  unknown: {}, // text no keyword reads, kept verbatim (parseList)
};

const PARSERS: ReadonlyMap<string, Parser> = new Map(
  Object.values(PARSERS_BY_KIND).flatMap((byKeyword) => Object.entries(byKeyword)),
);

/** The actions inside `clone(…)` or `write_actions(…)`. */
function nestedList(t: ActionToken, e: Env, keyword: string): Action[] {
  return parseList(e.text, t.argOffset, t.argOffset + (t.arg ?? '').length, { ...e }, keyword);
}

/** OF1.1+ instructions in the order OVS requires them after the apply-actions. */
const INSTRUCTION_ORDER: readonly string[] = [
  'meter',
  'apply',
  'clear_actions',
  'write_actions',
  'write_metadata',
  'goto_table',
];

function instructionOf(a: Action): string {
  return INSTRUCTION_ORDER.includes(a.kind) ? a.kind : 'apply';
}

function parseOne(tok: ActionToken, env: Env): Action | undefined {
  const parser = PARSERS.get(tok.name.toLowerCase());
  if (parser) return parser(tok, env);
  if (tok.arg === undefined || (tok.name.toUpperCase() === 'CONTROLLER' && !tok.paren)) {
    const port = parsePortRef(tok.name, env.ctx.portMap, true);
    if (port) {
      if (port.kind === 'reserved' && port.name === 'CONTROLLER' && tok.arg !== undefined) return parseController(tok);
      return portAction(port);
    }
  }
  if (tok.name.toLowerCase() === 'drop' && tok.arg === undefined) return undefined;
  throw new ActionError(`unknown action ${tok.name}`, tok.nameOffset, tok.name.length, 'warning');
}

function parseList(text: string, start: number, end: number, outer: Env, nestedIn: string | undefined): Action[] {
  if (nestedIn !== undefined && outer.depth + 1 >= MAX_ACTION_NESTING)
    throw new ActionError('Action nested too deeply', start, Math.max(1, end - start));
  const env: Env = nestedIn === undefined ? outer : { ...outer, depth: outer.depth + 1 };
  const { sink } = env.ctx;
  const out: Action[] = [];
  let sawDrop = -1;
  let lastInstruction = -1;
  for (const tok of scanActionTokens(text, start, end)) {
    if (tok.unbalanced) sink.error(`${tok.name}: unbalanced parentheses`, tok.nameOffset, tok.end - tok.nameOffset);
    try {
      const a = parseOne(tok, env);
      if (!a) {
        sawDrop = tok.nameOffset;
        continue;
      }
      if (!nestedIn && env.ctx.bucket && instructionOf(a) !== 'apply') {
        sink.error(`${a.kind} instruction not allowed here`, tok.nameOffset, tok.end - tok.nameOffset);
      } else if (!nestedIn) {
        const rank = INSTRUCTION_ORDER.indexOf(instructionOf(a));
        if (rank < lastInstruction || (rank === lastInstruction && rank !== 1)) {
          const before =
            INSTRUCTION_ORDER[lastInstruction] === 'apply' ? 'apply actions' : INSTRUCTION_ORDER[lastInstruction];
          sink.error(
            `invalid instruction ordering: ${a.kind} must not follow ${before}`,
            tok.nameOffset,
            tok.end - tok.nameOffset,
          );
        }
        lastInstruction = Math.max(lastInstruction, rank);
      } else if (instructionOf(a) !== 'apply' && a.kind !== 'meter') {
        sink.error(`${a.kind} is not allowed inside ${nestedIn}`, tok.nameOffset, tok.end - tok.nameOffset);
      }
      out.push(a);
    } catch (e) {
      if (!(e instanceof ActionError)) throw e;
      if (e.severity === 'error') sink.error(e.message, e.offset, e.length);
      else sink.warning(e.message, e.offset, e.length);
      out.push({ kind: 'unknown', text: text.slice(tok.nameOffset, tok.end) });
    }
  }
  if (sawDrop >= 0 && out.length > 0) {
    sink.error('"drop" must not be accompanied by any other action or instruction', sawDrop, 4);
  }
  if (!nestedIn) checkConjunction(out, sink, start, end);
  return out;
}

function checkConjunction(actions: readonly Action[], sink: ProblemSink, start: number, end: number): void {
  if (!actions.some((a) => a.kind === 'conjunction')) return;
  const other = actions.find((a) => a.kind !== 'conjunction' && a.kind !== 'note');
  if (other) {
    sink.error(
      `"conjunction" actions may be used along with "note" but not any other kind of action (such as the "${other.kind}" action used here)`,
      start,
      end - start,
    );
  }
}

/**
 * Parses the action list text[start,end) (the text after `actions=`). Problems carry offsets into
 * `text` (the whole line) so they can be shown with a caret. Never throws.
 */
export function parseActions(text: string, start: number, end: number, ctx: ActionContext): Action[] {
  return parseActionList(text, start, end, ctx).actions;
}

/** What ends each number of `conjunction(ID,K/N)`: `,`, `/`, `)`. */
const CONJUNCTION_ENDS = [0x2c, 0x2f, 0x29];

type Conjunction = Extract<Action, { kind: 'conjunction' }>;

/**
 * Conjunction actions by id, each id's few (clause, clauses) pairs in a short list: a NetworkPolicy
 * dump repeats each action in many lists, and actions are immutable, so one object serves them
 * all. Searching an id's list is cheaper than hashing into one table of every action. Ids below
 * 2^16 only, and a few pairs per id, so the cache stays small.
 */
const CONJUNCTIONS: (Conjunction[] | undefined)[] = new Array(1 << 16);
const PAIRS_PER_ID = 8;

function conjunctionOf(id: number, clause: number, nClauses: number): Action {
  const known = id < CONJUNCTIONS.length ? (CONJUNCTIONS[id] ??= []) : undefined;
  if (known) for (const a of known) if (a.clause === clause && a.nClauses === nClauses) return a;
  const a: Conjunction = { kind: 'conjunction', id, clause, nClauses };
  if (known && known.length < PAIRS_PER_ID) known.push(a);
  return a;
}

/**
 * The `conjunction(ID,K/N),…` lists that make up most of a large NetworkPolicy dump, read
 * directly when every element is in the plain form OVS prints and valid; anything else (spaces,
 * hex ids, errors) is left to the general parser.
 */
export function plainConjunctions(text: string, start: number, end: number): Action[] | undefined {
  const out: Action[] = [];
  return readPlainConjunctions(text, start, end, out) ? out : undefined;
}

/** A clause of one of up to nine, `K/N` with 1 ≤ K ≤ N and 2 ≤ N ≤ 9: most rules have two or three. */
const SMALL_CLAUSE = '(?:[1-2]/[2-9]|3/[3-9]|4/[4-9]|5/[5-9]|6/[6-9]|7/[7-9]|8/[89]|9/9)';
const SMALL_CONJUNCTION = `conjunction\\(\\d{1,9},${SMALL_CLAUSE}\\)`;
/**
 * A list of plain conjunctions whose ids have at most nine digits (so fit 32 bits) and whose
 * clauses are of up to nine: a pattern is several times faster than reading the numbers one by
 * one, and every list it takes, readPlainConjunctions takes too.
 */
const SMALL_CONJUNCTIONS = new RegExp(`${SMALL_CONJUNCTION}(?:,${SMALL_CONJUNCTION})*`, 'y');

/** Whether `text[start, end)` is a list plainConjunctions reads, without making its actions. */
export function isPlainConjunctionList(text: string, start: number, end: number): boolean {
  SMALL_CONJUNCTIONS.lastIndex = start;
  if (SMALL_CONJUNCTIONS.test(text) && SMALL_CONJUNCTIONS.lastIndex === end) return true;
  return readPlainConjunctions(text, start, end, undefined);
}

/**
 * The conjunctions of an action list `text[start, end)` that is a plain conjunction list (a lazily
 * read flow's, see LineFlow.eachConjunction), each told to `visit` as numbers without making an
 * action: the conjunction analysis reads a million such lists once. False when it is no such
 * list; the conjunctions before the first element that is not plain have been told then.
 */
export function eachListConjunction(text: string, start: number, end: number, visit: ConjunctionVisitor): boolean {
  return readPlainConjunctions(text, start, end, undefined, visit);
}

function readPlainConjunctions(
  text: string,
  start: number,
  end: number,
  out: Action[] | undefined,
  visit?: ConjunctionVisitor,
): boolean {
  for (let i = start; ;) {
    if (!text.startsWith('conjunction(', i)) return false;
    // `ID,K/N)`: each number's digits, then the character that ends it. Read here rather than by a
    // DecimalRun: a short run interprets this code, and a call for each of the three numbers of a
    // conjunction action cost more than its digits.
    let id = 0;
    let clause = 0;
    let nClauses = 0;
    let at = i + 12;
    for (let part = 0; part < 3; part++) {
      const from = at;
      let n = 0;
      for (let c = text.charCodeAt(at); c >= 0x30 && c <= 0x39; c = text.charCodeAt(++at)) n = n * 10 + c - 0x30;
      if (at === from || text.charCodeAt(at) !== CONJUNCTION_ENDS[part]) return false;
      if (part === 0) id = n;
      else if (part === 1) clause = n;
      else nClauses = n;
      at++;
    }
    if (at > end) return false;
    if (id > 0xffffffff || nClauses < 2 || nClauses > 64 || clause < 1 || clause > nClauses) return false;
    out?.push(conjunctionOf(id, clause, nClauses));
    visit?.(id, clause, nClauses);
    i = at;
    if (i === end) return true;
    if (text.charCodeAt(i) !== 0x2c) return false;
    i++;
  }
}

/** parseActions, also telling whether the result depends on `ctx.match` (or is the same for any match). */
export function parseActionList(
  text: string,
  start: number,
  end: number,
  ctx: ActionContext,
): { actions: Action[]; readsMatch: boolean } {
  const conjunctions = ctx.bucket ? undefined : plainConjunctions(text, start, end);
  if (conjunctions) return { actions: conjunctions, readsMatch: false };
  const tci = ctx.match?.fields.find((f) => f.field.name === 'vlan_tci');
  const env: Env = {
    text,
    ctx,
    hasVlan: tci !== undefined && (tci.value & tci.mask & 0x1000n) !== 0n,
    inCt: false,
    reads: { match: false },
    depth: 0,
  };
  try {
    return { actions: parseList(text, start, end, env, undefined), readsMatch: env.reads.match };
  } catch (e) {
    // Defensive: a bug in one parser must not take the whole file down.
    ctx.sink.error(`cannot parse actions: ${e instanceof Error ? e.message : String(e)}`, start, end - start);
    return { actions: [{ kind: 'unknown', text: text.slice(start, end) }], readsMatch: true };
  }
}
