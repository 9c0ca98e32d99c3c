/**
 * The placeholders of a pattern's sentence (`FlowPattern.meaning`) and whether a flow gives each
 * of them a value. A sentence is only ever said of a flow that fills it: a pattern whose
 * placeholder the flow leaves empty does not fit that flow, unless the template says in words
 * what an absent value means (`{tp_dst|any port}`). Placeholders written back to back
 * (`{nw_dst}{ipv6_dst}`) are alternatives: one of them having a value is enough.
 * render/words/template.ts fills the sentence.
 */
import { type Action, flattenActions } from '../../model/actions.ts';
import { fieldByName } from '../../model/fields.ts';
import type { Flow } from '../../model/flow.ts';
import { matchField } from '../../model/match.ts';
import { ones } from '../../model/values.ts';
import type { BitField } from '../../profiles/types.ts';
import { jumpTargets } from '../../model/flow-exits.ts';

export interface Placeholder {
  /** What stands between the braces before any `|`: `nw_dst`, `reg.SourceVNID`, `next`. */
  readonly name: string;
  /** Words said when the flow gives no value. */
  readonly fallback?: string;
}

/** A piece of a sentence: plain text, or placeholders written back to back. */
export type TemplatePart = { readonly text: string } | { readonly run: readonly Placeholder[] };

const parsed = new Map<string, readonly TemplatePart[]>();

/** The sentence cut into text and runs of placeholders, parsed once per sentence. */
export function templateParts(meaning: string): readonly TemplatePart[] {
  let parts = parsed.get(meaning);
  if (parts) return parts;
  const out: TemplatePart[] = [];
  const re = /(?:\{[^}]+\})+/g;
  let at = 0;
  for (let m = re.exec(meaning); m; m = re.exec(meaning)) {
    if (m.index > at) out.push({ text: meaning.slice(at, m.index) });
    const run = [...m[0].matchAll(/\{([^}|]+)(?:\|([^}]*))?\}/g)].map((p) => ({
      name: p[1]!,
      ...(p[2] !== undefined ? { fallback: p[2] } : {}),
    }));
    out.push({ run });
    at = m.index + m[0].length;
  }
  if (at < meaning.length) out.push({ text: meaning.slice(at) });
  parsed.set(meaning, (parts = out));
  return parts;
}

/** Placeholders that always have words: the conntrack zone (the default zone when none is given), the flow's priority and table. */
const ALWAYS = new Set(['zone', 'priority', 'table']);

function writes(all: readonly Action[], storage: string, span?: bigint): boolean {
  return all.some(
    (a) => a.kind === 'set_field' && a.field.storage === storage && (span === undefined || (a.mask & span) === span),
  );
}

/**
 * Whether the flow gives the placeholder a value, as the annotator reads it: a match field, a
 * bit field of the profile (`reg.NAME`, from the match, else from what the actions write), a
 * written field (`set.F`), or one of the template words (`next`, `output`, `group`, …).
 */
export function hasValue(name: string, flow: Flow, bitField: (name: string) => BitField | undefined): boolean {
  if (ALWAYS.has(name)) return true;
  const all = flattenActions(flow.actions);
  if (name.startsWith('reg.')) {
    const b = bitField(name.slice(4));
    const storage = b && fieldByName(b.field)?.storage;
    if (!b || !storage) return false;
    const span = ones(b.end - b.start + 1) << BigInt(b.start);
    return (
      flow.match.fields.some((x) => x.field.storage === storage && (x.mask & span) === span) ||
      writes(all, storage, span)
    );
  }
  if (name.startsWith('set.')) {
    const storage = fieldByName(name.slice(4))?.storage;
    return storage !== undefined && writes(all, storage);
  }
  switch (name) {
    case 'next':
      return jumpTargets(flow.actions).length > 0;
    case 'output':
      return all.some((a) => a.kind === 'output' || a.kind === 'output_field');
    case 'group':
      return all.some((a) => a.kind === 'group');
    case 'conjunction':
      return all.some((a) => a.kind === 'conjunction');
    default:
      return matchField(flow.match, name) !== undefined;
  }
}

/** Whether every run of the sentence has a value from the flow, or words for its absence. */
export function fillable(meaning: string, flow: Flow, bitField: (name: string) => BitField | undefined): boolean {
  return templateParts(meaning).every(
    (p) => !('run' in p) || p.run.some((ph) => ph.fallback !== undefined || hasValue(ph.name, flow, bitField)),
  );
}
