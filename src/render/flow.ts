/** Flows printed in the forms `ovs-ofctl` uses. */
import type { Flow } from '../model/flow.ts';
import { carriedIn, DEFAULT_PRIORITY, flagsCarried } from '../model/flow.ts';
import type { OfVersion } from '../model/openflow.ts';
import type { PortMap } from '../model/ports.ts';
import { tableLabel } from '../model/tables.ts';
import { formatActions } from './actions.ts';
import { formatMatch } from './match.ts';

/** `priority=P,<match>` as OVS prints it: priority omitted when it is the default. */
export function formatPriorityAndMatch(flow: Flow, portNames?: PortMap): string {
  const match = formatMatch(flow.match, portNames ? { portNames } : {});
  if (flow.priority === DEFAULT_PRIORITY) return match;
  return match === '' ? `priority=${flow.priority}` : `priority=${flow.priority},${match}`;
}

/**
 * The flow as `ovs-ofctl -O <of> parse-flow` prints it after `ADD `, with `table:N ` written
 * `table=N, `: match, then cookie, timeouts, importance and the flags, each where the version
 * carries it (as OVS does, leaving out what it cannot send), then the actions.
 */
export function formatFlowCanonical(flow: Flow, of: OfVersion): string {
  const parts: string[] = [];
  const head = formatPriorityAndMatch(flow);
  if (head !== '') parts.push(head);
  if (flow.cookie !== 0n) parts.push(`cookie:0x${flow.cookie.toString(16)}`);
  if (flow.idleTimeout) parts.push(`idle:${flow.idleTimeout}`);
  if (flow.hardTimeout) parts.push(`hard:${flow.hardTimeout}`);
  if (flow.importance && carriedIn('importance', of)) parts.push(`importance:${flow.importance}`);
  parts.push(...flagsCarried(flow.flags, of));
  parts.push(`actions=${formatActions(flow.actions, { of })}`);
  const table = flow.table.kind === 'number' && flow.table.number === 0 ? '' : `table=${tableLabel(flow.table)}, `;
  return table + parts.join(' ');
}

/**
 * A flow's name for `-o name`: what tells it apart in its switch (table, priority, match), as
 * `ovs-ofctl --strict del-flows` takes it: `table=10,priority=200,ip,in_port=2`.
 */
export function flowName(flow: Flow, portNames?: PortMap): string {
  const head = formatPriorityAndMatch(flow, portNames);
  const table = flow.table.kind === 'number' ? String(flow.table.number) : quoteTableName(flow.table.name);
  return head === '' ? `table=${table}` : `table=${table},${head}`;
}

function quoteTableName(name: string): string {
  return /^[\w-]+$/.test(name) ? name : JSON.stringify(name);
}
