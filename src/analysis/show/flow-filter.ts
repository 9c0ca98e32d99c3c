/**
 * Selecting flows of a dump: by table (number or any name the dump or profile gives it), cookie,
 * port, an address the match admits, conjunction id, and whether it was hit. Decided before a
 * flow is annotated, so that a narrow selection of a large dump costs little.
 */
import { flattenActions, type Subfield } from '../../model/actions.ts';
import { sentPorts } from '../../model/port-refs.ts';
import type { Flow } from '../../model/flow.ts';
import type { PortMap, PortRef } from '../../model/ports.ts';
import type { TableSpec } from '../../profiles/types.ts';
import type { TableInfo } from '../annotate/annotate.ts';
import { closestName } from '../../model/spelling.ts';
import type { PortRoles } from '../fit/port-roles.ts';

export interface Cookie {
  readonly value: bigint;
  readonly mask: bigint;
}

/** An address, or with a mask a network (`10.10.0.0/16`). */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly value: bigint;
  /** All ones for one address. */
  readonly mask: bigint;
}

/** Each criterion holds any of its values; a flow passes when it meets every criterion given. */
export interface FlowFilter {
  /** Table numbers or names. */
  readonly tables?: readonly string[];
  readonly cookies?: readonly Cookie[];
  /**
   * Port numbers or names the flow matches as input or outputs to, directly or through one of
   * `portFields`: setting it to the port, or matching it holding the port.
   */
  readonly ports?: readonly string[];
  /** Where the pipeline keeps the port a packet leaves by (`outputRegisters`). */
  readonly portFields?: readonly Subfield[];
  /** Addresses (or networks) some address field of the match admits some of. */
  readonly ips?: readonly IpAddress[];
  /** Conjunctions the flow completes (`conj_id=`) or contributes to (`conjunction(…)`). */
  readonly conjIds?: readonly number[];
  /** Only flows with n_packets above zero. */
  readonly hits?: boolean;
}

const isNumber = (text: string): boolean => /^\d+$/.test(text);

function specNames(spec: TableSpec | undefined): string[] {
  return spec ? [spec.name, ...(spec.aliases ?? [])] : [];
}

/** A table as `-T` gives it: a number without leading zeros, or a name in lower case. */
function selectionKey(wanted: string): string {
  return isNumber(wanted) ? String(Number(wanted)) : wanted.toLowerCase();
}

/** Every way `-T` may give the table (its number, the dump's name, the profile's name and aliases), as selection keys. */
function tableKeys(t: TableInfo): Set<string> {
  const keys = new Set<string>();
  if (t.number !== undefined) keys.add(String(t.number));
  for (const name of [t.name, ...specNames(t.spec)])
    if (name !== undefined && !isNumber(name)) keys.add(name.toLowerCase());
  return keys;
}

/**
 * Whether the filter's tables take in `table`. Asked once per table, so that a table left out
 * costs nothing per flow and `flowTest` need not ask again for each of its flows.
 */
export function tableSelected(table: TableInfo, filter: FlowFilter): boolean {
  if (filter.tables === undefined || filter.tables.length === 0) return true;
  const keys = tableKeys(table);
  return filter.tables.some((w) => keys.has(selectionKey(w)));
}

/**
 * The subfields `output:FIELD[…]` actions send packets by (Antrea's reg1, TargetOFPort): a flow
 * that loads a port number there, or matches it there, is about packets leaving by that port.
 */
export function outputRegisters(flows: readonly Flow[]): Subfield[] {
  const found = new Map<string, Subfield>();
  for (const f of flows) {
    for (const a of flattenActions(f.actions)) {
      if (a.kind === 'output_field') found.set(`${a.src.field.storage}[${a.src.start}+${a.src.bits}]`, a.src);
    }
  }
  return [...found.values()];
}

/** Whether value/mask, over a whole field, holds exactly `port` in the subfield. */
function holdsPort(value: bigint, mask: bigint, sub: Subfield, port: number): boolean {
  const bits = ((1n << BigInt(sub.bits)) - 1n) << BigInt(sub.start);
  return (mask & bits) === bits && (value & bits) >> BigInt(sub.start) === BigInt(port);
}

function portFits(flow: Flow, port: string, roles: PortRoles, fields: readonly Subfield[]): boolean {
  const number = isNumber(port) ? Number(port) : undefined;
  const same = (p: PortRef | number): boolean => {
    const id = roles.identify(p);
    return number !== undefined ? id.number === number : id.name === port;
  };
  const inPort = flow.match.fields.find((e) => e.field.storage === 'in_port');
  if (inPort && same(inPort.port?.kind === 'name' ? inPort.port : Number(inPort.value))) return true;
  const actions = flattenActions(flow.actions);
  if (actions.some((a) => sentPorts(a).some((p) => p.kind !== 'reserved' && same(p)))) return true;
  // Through a register, the port is a number: a name is looked up in the port map.
  const wanted = number ?? roles.identify({ kind: 'name', name: port }).number;
  if (wanted === undefined || fields.length === 0) return false;
  for (const sub of fields) {
    const storage = sub.field.storage;
    if (
      actions.some(
        (a) => a.kind === 'set_field' && a.field.storage === storage && holdsPort(a.value, a.mask, sub, wanted),
      )
    )
      return true;
    if (flow.match.fields.some((e) => e.field.storage === storage && holdsPort(e.value, e.mask, sub, wanted)))
      return true;
  }
  return false;
}

/** Whether some address field of the match admits an address of the network: the two overlap. */
function ipFits(flow: Flow, ip: IpAddress): boolean {
  const format = ip.family === 4 ? 'ipv4' : 'ipv6';
  return flow.match.fields.some((e) => e.field.format === format && ((ip.value ^ e.value) & e.mask & ip.mask) === 0n);
}

function conjFits(flow: Flow, id: number): boolean {
  const conj = flow.match.fields.find((e) => e.field.name === 'conj_id');
  if (conj && conj.value === BigInt(id)) return true;
  return flow.actions.some((a) => a.kind === 'conjunction' && a.id === id);
}

/**
 * The test a flow must pass, every criterion given but the table (which `tableSelected` decides
 * for all of a table's flows); undefined when the filter asks nothing of single flows: every flow
 * of a selected table passes then, and none of a large dump's flows need be asked.
 */
export function flowTest(filter: FlowFilter, roles: PortRoles): ((flow: Flow) => boolean) | undefined {
  // Each criterion holds when one of its values does; one without values is not given.
  const tests: ((flow: Flow) => boolean)[] = [];
  const { cookies, ports, ips, conjIds } = filter;
  if (cookies && cookies.length > 0)
    tests.push((flow) => cookies.some((c) => (flow.cookie & c.mask) === (c.value & c.mask)));
  if (ports && ports.length > 0) {
    const fields = filter.portFields ?? [];
    tests.push((flow) => ports.some((p) => portFits(flow, p, roles, fields)));
  }
  if (ips && ips.length > 0) tests.push((flow) => ips.some((ip) => ipFits(flow, ip)));
  if (conjIds && conjIds.length > 0) tests.push((flow) => conjIds.some((id) => conjFits(flow, id)));
  if (filter.hits) tests.push((flow) => (flow.stats?.packets ?? 0n) > 0n);
  return tests.length === 0 ? undefined : (flow) => tests.every((t) => t(flow));
}

/** A selection that cannot select anything in the dump, and what it knows that is near it. */
export type FilterProblem =
  /** A table number past 254. */
  | { readonly kind: 'table-out-of-range'; readonly table: string }
  /** A table the dump or the profile knows, without flows in the dump. */
  | { readonly kind: 'table-without-flows'; readonly table: string }
  /** A table name neither the dump nor the profile has: the closest name, and the dump's tables. */
  | {
      readonly kind: 'unknown-table';
      readonly table: string;
      readonly closest?: string;
      readonly tables: readonly (string | number)[];
    }
  /** A port number where the flows name their ports and nothing numbers them. */
  | { readonly kind: 'unnumbered-port'; readonly port: string }
  /** A port name neither the flows nor the port map (`portMap`: there is one) use. */
  | { readonly kind: 'unknown-port'; readonly port: string; readonly closest?: string; readonly portMap: boolean }
  /** --hits on a dump without packet counts. */
  | { readonly kind: 'no-packet-counts' };

/** A value that names nothing at all (a mistyped table name), rather than one this dump happens to lack. */
export function filterProblemIsError(p: FilterProblem): boolean {
  return p.kind === 'table-out-of-range' || p.kind === 'unknown-table';
}

/** Port names the flows use themselves (a `--names` dump), and whether they give any port by name. */
function namedPorts(flows: readonly Flow[]): Set<string> {
  const names = new Set<string>();
  const add = (p: PortRef | undefined): void => {
    if (p?.kind === 'name') names.add(p.name);
  };
  for (const f of flows) {
    for (const e of f.match.fields) if (e.field.storage === 'in_port') add(e.port);
    for (const a of flattenActions(f.actions)) for (const p of sentPorts(a)) add(p);
  }
  return names;
}

/**
 * Criteria that cannot select anything in this dump, said so that an empty report does not
 * leave the user guessing: a table neither the dump nor the profile has, a port no one names,
 * a port number where the flows only name ports, hit counts in a dump without statistics.
 */
export function filterProblems(
  filter: FlowFilter,
  tables: readonly TableInfo[],
  profileTables: readonly TableSpec[],
  flows: readonly Flow[],
  ports: PortMap,
): FilterProblem[] {
  const out: FilterProblem[] = [];
  const keys = (filter.tables ?? []).length > 0 ? tables.map(tableKeys) : [];
  for (const w of filter.tables ?? []) {
    if (keys.some((k) => k.has(selectionKey(w)))) continue;
    const inProfile =
      !isNumber(w) && profileTables.some((spec) => specNames(spec).some((n) => n.toLowerCase() === w.toLowerCase()));
    if (isNumber(w) && Number(w) > 254) out.push({ kind: 'table-out-of-range', table: w });
    else if (isNumber(w) || inProfile) out.push({ kind: 'table-without-flows', table: w });
    else {
      const names = [
        ...tables.flatMap((t) => (t.name === undefined ? [] : [t.name])),
        ...profileTables.flatMap(specNames),
      ];
      const closest = closestName(w, names);
      out.push({
        kind: 'unknown-table',
        table: w,
        ...(closest === undefined ? {} : { closest }),
        tables: tables.map((t) => t.name ?? t.number ?? ''),
      });
    }
  }
  if ((filter.ports ?? []).length > 0) {
    const named = namedPorts(flows);
    for (const p of filter.ports ?? []) {
      if (isNumber(p) && ports.size === 0 && named.size > 0) out.push({ kind: 'unnumbered-port', port: p });
      else if (!isNumber(p) && ports.number(p) === undefined && !named.has(p)) {
        const closest = closestName(p, [...named, ...[...ports.entries()].map(([, name]) => name)]);
        out.push({
          kind: 'unknown-port',
          port: p,
          ...(closest === undefined ? {} : { closest }),
          portMap: ports.size > 0,
        });
      }
    }
  }
  if (filter.hits && !flows.some((f) => f.stats?.packets !== undefined)) {
    out.push({ kind: 'no-packet-counts' });
  }
  return out;
}
