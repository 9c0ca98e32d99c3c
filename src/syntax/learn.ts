/** `learn(...)` arguments → LearnAction (OVS lib/learn.c `learn_parse`). */
import type { LearnAction, LearnSpec, Subfield } from '../model/actions.ts';
import { fieldByName } from '../model/fields.ts';
import type { PortMap } from '../model/ports.ts';
import type { TableRef } from '../model/tables.ts';
import { ones } from '../model/values.ts';
import { type ActionToken, parseSmall, scanActionTokens } from './action-args.ts';
import { parseFieldValue } from './field-value.ts';
import { parseUint } from './numbers.ts';
import { parseSubfield } from './subfield.ts';

type Fail = (tok: ActionToken, message: string) => never;

/** A numeric immediate of any width (learn values may be up to 128 bits and are checked after). */
function immediate(text: string): bigint | undefined {
  return parseUint(text, ones(4096));
}

/** A field reference, if `text` is one (field names start with a letter, values mostly do not). */
function sourceField(text: string): Subfield | undefined {
  if (!/^[A-Za-z_]/.test(text)) return undefined;
  const r = parseSubfield(text);
  return r.ok ? r.subfield : undefined;
}

function parseSpec(tok: ActionToken, t: ActionToken, portMap: PortMap | undefined, fail: Fail): LearnSpec {
  const where = `${tok.arg ?? ''}`;
  const sub = (text: string): Subfield => {
    const r = parseSubfield(text);
    if (!r.ok) fail(tok, `${where}: ${r.error}`);
    return r.subfield;
  };
  const fits = (value: bigint, dst: Subfield, text: string): bigint => {
    if (value > ones(dst.bits)) fail(tok, `${text}: value does not fit into ${dst.bits} bits`);
    return value;
  };
  if (t.name === 'load') {
    const arg = t.arg ?? '';
    const arrow = arg.indexOf('->');
    if (arrow < 0) fail(tok, `${arg}: missing \`->' in learn load`);
    const dst = sub(arg.slice(arrow + 2));
    const srcText = arg.slice(0, arrow).trim();
    const src = sourceField(srcText);
    if (src) {
      if (src.bits !== dst.bits) fail(tok, `${arg}: source and destination widths differ`);
      return { kind: 'load_field', dst, src };
    }
    const v = immediate(srcText);
    if (v === undefined) fail(tok, `${srcText}: invalid value in learn load`);
    return { kind: 'load_value', dst, value: fits(v, dst, arg) };
  }
  if (t.name === 'output') return { kind: 'output', src: sub(t.arg ?? '') };
  if (t.name.includes('[')) {
    const dst = sub(t.name);
    if (t.arg === undefined) return { kind: 'match_field', dst, src: dst };
    const src = sourceField(t.arg);
    if (src) {
      if (src.bits !== dst.bits) fail(tok, `${t.name}=${t.arg}: source and destination widths differ`);
      return { kind: 'match_field', dst, src };
    }
    const v = immediate(t.arg);
    if (v === undefined) fail(tok, `${t.arg}: invalid value in learn match`);
    return { kind: 'match_value', dst, value: fits(v, dst, `${t.name}=${t.arg}`) };
  }
  const f = fieldByName(t.name);
  if (!f) fail(tok, `${where}: unknown keyword ${t.name}`);
  const dst: Subfield = { field: f, start: 0, bits: f.bits };
  if (t.arg === undefined) return { kind: 'match_field', dst, src: dst };
  const src = sourceField(t.arg);
  if (src) {
    if (src.bits !== dst.bits) fail(tok, `${t.name}=${t.arg}: source and destination widths differ`);
    return { kind: 'match_field', dst, src };
  }
  const r = parseFieldValue(f, t.arg, portMap);
  if (!r.ok) {
    const asField = parseSubfield(t.arg);
    const why = asField.ok ? '' : asField.error;
    fail(
      tok,
      `${where}: ${t.name} value ${t.arg} cannot be parsed as a subfield (${why}) or an immediate value (${r.error})`,
    );
  }
  return { kind: 'match_value', dst, value: r.value };
}

type LearnNumber = 'priority' | 'idleTimeout' | 'hardTimeout' | 'finIdleTimeout' | 'finHardTimeout' | 'limit';

/** The learned flow's numbers: the key each is given by, and its largest value. */
const LEARN_NUMBERS: ReadonlyMap<string, readonly [LearnNumber, number]> = new Map([
  ['priority', ['priority', 0xffff]],
  ['idle_timeout', ['idleTimeout', 0xffff]],
  ['hard_timeout', ['hardTimeout', 0xffff]],
  ['fin_idle_timeout', ['finIdleTimeout', 0xffff]],
  ['fin_hard_timeout', ['finHardTimeout', 0xffff]],
  ['limit', ['limit', 0xffffffff]],
]);

/** Parses the text inside `learn(...)`. */
export function parseLearn(tok: ActionToken, portMap: PortMap | undefined, fail: Fail): LearnAction {
  const arg = tok.arg ?? '';
  let table: TableRef = { kind: 'number', number: 1 };
  let learn: Omit<LearnAction, 'table' | 'specs'> = { kind: 'learn', sendFlowRem: false, deleteLearned: false };
  const specs: LearnSpec[] = [];
  const n = (t: ActionToken, max: number): number => {
    const v = parseSmall(t.arg ?? '', max);
    if (v === undefined) fail(tok, `${t.arg ?? ''}: invalid ${t.name}`);
    return v;
  };
  for (const t of scanActionTokens(arg, 0, arg.length)) {
    const number = LEARN_NUMBERS.get(t.name);
    if (number) {
      learn = { ...learn, [number[0]]: n(t, number[1]) };
      continue;
    }
    switch (t.name) {
      case 'table': {
        const v = t.arg ?? '';
        const num = parseSmall(v, 254);
        if (num === undefined && !/^[A-Za-z]\w*$/.test(v)) fail(tok, `${v}: invalid table in learn`);
        table = num === undefined ? { kind: 'name', name: v } : { kind: 'number', number: num };
        break;
      }
      case 'cookie': {
        const v = parseUint(t.arg ?? '', ones(64));
        if (v === undefined) fail(tok, `${t.arg ?? ''}: invalid cookie`);
        learn = { ...learn, cookie: v };
        break;
      }
      case 'send_flow_rem':
        learn = { ...learn, sendFlowRem: true };
        break;
      case 'delete_learned':
        learn = { ...learn, deleteLearned: true };
        break;
      case 'result_dst': {
        const r = parseSubfield(t.arg ?? '');
        if (!r.ok) fail(tok, r.error);
        if (r.subfield.bits !== 1) fail(tok, "result_dst in 'learn' action must be a single bit");
        learn = { ...learn, resultDst: r.subfield };
        break;
      }
      default:
        specs.push(parseSpec(tok, t, portMap, fail));
    }
  }
  return { ...learn, table, specs };
}
