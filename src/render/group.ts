/** Groups printed as `ovs-ofctl dump-groups` prints them for a given OpenFlow version. */
import type { Bucket, Group } from '../model/flow.ts';
import type { OfVersion } from '../model/openflow.ts';
import type { PortRef } from '../model/ports.ts';
import { formatActions } from './actions.ts';
import { formatFieldValue } from '../syntax/field-value.ts';

function port(p: PortRef): string {
  if (p.kind === 'number') return String(p.number);
  if (p.kind === 'reserved') return p.name;
  return /^[A-Za-z][A-Za-z0-9]*$/.test(p.name) ? p.name : JSON.stringify(p.name);
}

function bucket(g: Group, b: Bucket, of: OfVersion): string {
  const parts: string[] = [];
  // OpenFlow 1.1–1.4 have no bucket ids on the wire.
  if (of === 10 || of === 15) parts.push(`bucket_id:${b.id}`);
  const defaultWeight = g.type === 'select' ? 1 : 0;
  if (b.weight !== undefined && b.weight !== defaultWeight) parts.push(`weight:${b.weight}`);
  if (b.watchPort) parts.push(`watch_port:${port(b.watchPort)}`);
  if (b.watchGroup !== undefined) parts.push(`watch_group:${b.watchGroup}`);
  parts.push(`actions=${formatActions(b.actions, { of })}`);
  return `bucket=${parts.join(',')}`;
}

export function formatGroup(g: Group, of: OfVersion): string {
  const parts = [`group_id=${g.id}`, `type=${g.type}`];
  // Selection parameters travel only in the Nicira extension (OF1.0) and OF1.5.
  if (of === 10 || of === 15) {
    if (g.selectionMethod) parts.push(`selection_method=${g.selectionMethod}`);
    if (g.selectionMethodParam !== undefined) parts.push(`selection_method_param=${g.selectionMethodParam}`);
    if (g.fields) {
      const f = g.fields.map((s) =>
        s.mask === undefined ? s.field.name : `${s.field.name}=${formatFieldValue(s.field, s.mask)}`,
      );
      parts.push(`fields(${f.join(',')})`);
    }
  }
  for (const b of g.buckets) parts.push(bucket(g, b, of));
  return parts.join(',');
}
