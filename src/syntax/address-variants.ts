/**
 * Matches that differ from one read before only in the IPv4 address their last element gives
 * (`ip,nw_src=10.16.47.17`, then `ip,nw_src=10.16.47.18`): a NetworkPolicy dump holds one per
 * address of every address group. When the first such match read clean, the others are its
 * entries with that one address replaced. This is exact because an exact IPv4 value lands in its
 * own storage and nothing else: no other entry, prerequisite or warning depends on the address.
 * Finding the template by the few characters before the address is much cheaper than finding a
 * whole match among the hundreds of thousands a large dump holds.
 */
import type { Match } from '../model/flow.ts';
import { fieldByName } from '../model/fields.ts';
import { type Ipv4Address, ones } from '../model/values.ts';
import { isSeparator, type KeyValueToken } from './tokens.ts';

/**
 * A clean match and which of its entries holds the address its last element gave, and where that
 * address starts in the match's text (the length of the text the template is kept under).
 */
export interface AddressTemplate {
  readonly match: Match;
  readonly index: number;
  readonly addressAt: number;
}

/**
 * Where the match text's last value starts and ends, when that value is a plain IPv4 address, and
 * the address as a number (see ipv4NumberAt: its bigint is made only for a new match): what
 * lastAddress found last, held in variables of the module rather than made anew for each line (nor
 * in an object's fields: outside optimised code, as a short run reads, each use of a field is a call).
 */
let lastPrefixEnd = 0;
let lastValueEnd = 0;
let lastAddressValue = 0;

/**
 * Whether the match text's last value is a plain IPv4 address (then found in lastPrefixEnd,
 * lastValueEnd and lastAddressValue): read back from its end, octet by octet, up to its `=`
 * (lastIndexOf would be a call into the runtime, and a second pass forward twice the characters read).
 */
function lastAddress(text: string, start: number, end: number): boolean {
  let valueEnd = end;
  while (valueEnd > start && isSeparator(text.charCodeAt(valueEnd - 1))) valueEnd--;
  let at = valueEnd - 1;
  let address = 0;
  // Each octet's up to three digits read unrolled, with no count or place value kept: outside
  // optimised code (a short run) every operation of a loop is a call.
  for (let octet = 0, weight = 1; octet < 4; octet++, weight *= 256) {
    if (octet > 0 && text.charCodeAt(at--) !== 0x2e) return false;
    // Up to three digits, as ipv4NumberAt reads them.
    const ones = text.charCodeAt(at) - 0x30;
    if (!(ones >= 0 && ones <= 9)) return false;
    let n = ones;
    const tens = text.charCodeAt(--at) - 0x30;
    if (tens >= 0 && tens <= 9) {
      n += tens * 10;
      const hundreds = text.charCodeAt(--at) - 0x30;
      if (hundreds >= 0 && hundreds <= 9) {
        n += hundreds * 100;
        at--;
      }
    }
    if (n > 255) return false;
    address += n * weight;
  }
  if (at < start || text.charCodeAt(at) !== 0x3d) return false;
  lastPrefixEnd = at + 1;
  lastValueEnd = valueEnd;
  lastAddressValue = address;
  return true;
}

/**
 * The template last found, the text it is kept under and the templates it was found among: a
 * dump lists the addresses of one template in runs, whose text before the address is compared in
 * place rather than cut out and looked up. A template is kept once under a text, never replaced.
 */
let foundAmong: ReadonlyMap<string, AddressTemplate> | undefined;
let foundKey = '';
let foundTemplate: AddressTemplate = { match: { fields: [] }, index: -1, addressAt: 0 };

/** Forgets the template last found once a text is read: its key is a slice of that text (see forgetPrintedStats). */
export function forgetLastTemplate(): void {
  foundAmong = undefined;
  foundKey = '';
}

/**
 * An IPv4 address as lastAddress reads one (four numbers of up to three digits, each up to 255,
 * the last one whole), then the separators after it: one test of a pattern, where lastAddress
 * reads each character.
 */
const OCTET = '(?:[01]?[0-9]?[0-9]|2[0-4][0-9]|25[0-5])';
const ADDRESS_TO_END = new RegExp(`${OCTET}(?:\\.${OCTET}){3}(?![0-9])[, \\t]*`, 'y');

/**
 * The template of the shape of `text[start, end)`, if there is one; the address its last element
 * gives then starts at its addressAt from `start` (see addressAt).
 */
export function templateVariant(
  text: string,
  start: number,
  end: number,
  templates: ReadonlyMap<string, AddressTemplate>,
): AddressTemplate | undefined {
  // Line after line of a run gives the template found last: its text, then an address to the end.
  if (foundAmong === templates && text.startsWith(foundKey, start)) {
    const at = start + foundKey.length;
    ADDRESS_TO_END.lastIndex = at;
    if (ADDRESS_TO_END.test(text) && ADDRESS_TO_END.lastIndex === end) return foundTemplate;
  }
  if (templates.size === 0 || !lastAddress(text, start, end)) return undefined;
  if (foundAmong === templates && lastPrefixEnd - start === foundKey.length && text.startsWith(foundKey, start))
    return foundTemplate;
  const prefix = text.slice(start, lastPrefixEnd);
  const template = templates.get(prefix);
  if (template === undefined) return undefined;
  foundAmong = templates;
  foundKey = prefix;
  foundTemplate = template;
  return template;
}

/**
 * The IPv4 address, as a number, from `at` in `text`, where templateVariant found one: read when
 * asked for, as most of a dump's addresses never are.
 */
export function addressAt(text: string, at: number): number {
  let address = 0;
  let octet = 0;
  for (let i = at; ; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2e) {
      address = address * 256 + octet;
      octet = 0;
    } else if (c >= 0x30 && c <= 0x39) octet = octet * 10 + c - 0x30;
    else return address * 256 + octet;
  }
}

/** The template's match with its address entry holding `address`. */
export function withAddress(match: Match, index: number, address: number): Match {
  const fields = match.fields.slice();
  const e = fields[index]!;
  fields[index] = { field: e.field, value: BigInt(address) as Ipv4Address, mask: e.mask };
  return { fields };
}

/** The match of `text[start, end)` made from a template of its shape, if there is one. */
export function matchFromTemplate(
  text: string,
  start: number,
  end: number,
  templates: ReadonlyMap<string, AddressTemplate>,
): Match | undefined {
  const template = templateVariant(text, start, end, templates);
  return template && withAddress(template.match, template.index, addressAt(text, start + template.addressAt));
}

/**
 * The template that the clean match read from `text[start, end)` (as `tokens`) makes, with the
 * text it is kept under: only when the last element sets an IPv4 field to an exact address, which
 * the match holds as it was written.
 */
export function templateOf(
  text: string,
  start: number,
  end: number,
  tokens: readonly KeyValueToken[],
  match: Match,
): { readonly key: string; readonly template: AddressTemplate } | undefined {
  const token = tokens[tokens.length - 1];
  if (!lastAddress(text, start, end) || !token || token.valueOffset !== lastPrefixEnd || token.end !== lastValueEnd)
    return undefined;
  const field = fieldByName(token.key);
  if (field?.format !== 'ipv4') return undefined;
  const index = match.fields.findIndex((e) => e.field.storage === field.storage);
  const e = match.fields[index];
  if (!e || e.value !== BigInt(lastAddressValue) || e.mask !== ones(32) || e.port) return undefined;
  return { key: text.slice(start, lastPrefixEnd), template: { match, index, addressAt: lastPrefixEnd - start } };
}
