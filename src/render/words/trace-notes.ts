/** What a trace says beside its actions, in ofproto/trace's words where it has some. */
import type { BucketAlternative, BucketChoice, TraceNote, XlateLimit } from '../../analysis/trace/trace.ts';
import type { PortRef } from '../../model/ports.ts';
import { tableLabel } from '../../model/tables.ts';

/** How ofproto/trace names a translation that hit each limit (xlate_strerror). */
export const XLATE_ERRORS: Readonly<Record<XlateLimit, string>> = {
  depth: 'Recursion too deep',
  resubmits: 'Too many resubmits',
  stack: 'Stack too deep',
  mpls: 'Too many MPLS labels',
};

/** How loud a note is: a detail (` -> `), a warning (` >> `) or an error (` >>>> … <<<<`). */
export type NoteLevel = 'detail' | 'warning' | 'error';

/** A watch port as ofproto/trace names it. */
function portText(ref: PortRef): string {
  return ref.kind === 'number' ? String(ref.number) : ref.name;
}

const ASSUMED = {
  'learn-not-installed': 'learned flow not installed (offline trace)',
  'multipath-link-0': 'multipath: link 0 assumed (the hash is not computed offline)',
  'bundle-first-member': 'bundle: first member assumed',
  'not-larger': 'packet length unknown offline: assumed not larger',
  normal: 'NORMAL: L2 learning switch behaviour, not simulated offline',
} as const;

function chosenWords(bucket: number, by: BucketChoice): string {
  const other = 'choose another with --bucket';
  switch (by.kind) {
    case 'first-live':
      return `using bucket ${bucket}`;
    case 'requested':
      return `using bucket ${bucket} (as requested)`;
    case 'only-live':
      return `using bucket ${bucket} (the only live one)`;
    case 'hash':
      return `using bucket ${bucket} (as the switch picks it, by the hash of ${by.fields.length > 0 ? by.fields.join(', ') : 'its addresses and ports'}; ${other})`;
    case 'l4-hash':
      return `using bucket ${bucket} (as the switch picks it, by the hash of the packet's addresses and ports: its weights need more than 256 datapath hash values; ${other})`;
    case 'dp-hash':
      return `using bucket ${bucket} (as the switch picks it, by dp_hash 0x${by.dpHash.toString(16)} among ${by.values} hash values; ${other})`;
  }
}

function alternativeWords(by: BucketAlternative): string {
  switch (by.kind) {
    case 'selection-unknown':
      return 'if the switch picks it: the dump does not show how it picks';
    case 'dp-hash':
      return `if the datapath hash selects it: dp_hash & 0x${by.mask.toString(16)} is ${by.hashes.map((h) => `0x${h.toString(16)}`).join(', ')}`;
  }
}

/** The note's level and its words. */
export function traceNoteWords(note: TraceNote): { readonly level: NoteLevel; readonly text: string } {
  const detail = (text: string): { level: NoteLevel; text: string } => ({ level: 'detail', text });
  const warning = (text: string): { level: NoteLevel; text: string } => ({ level: 'warning', text });
  switch (note.kind) {
    case 'action-set':
      return detail('Executing action set:');
    case 'translation-failed':
      return { level: 'error', text: `Translation failed (${XLATE_ERRORS[note.limit]}), packet is dropped` };
    case 'ttl-exceeded': {
      if (note.mpls) return detail('MPLS TTL exceeded: packet sent to the controller (invalid_ttl)');
      const hint = note.ttl === 0 ? ' (the packet gave no nw_ttl, so it is 0; add nw_ttl=64)' : '';
      return detail(
        `TTL ${note.ttl} exceeded: packet sent to the controller (invalid_ttl); the rest of this action list is skipped${hint}`,
      );
    }
    case 'output-port':
      return note.inRange ? detail(`output port is ${note.port}`) : warning(`output port ${note.port} is out of range`);
    case 'assumed':
      return detail(ASSUMED[note.what]);
    case 'stack-underflow':
      return warning('stack underflow');
    case 'not-simulated':
      return warning(`${note.action} is not simulated; the packet's headers are left as they were`);
    case 'unknown-action':
      return warning(`unknown action ${note.text} ignored`);
    case 'flood-without-ports':
      return warning('flooding needs the port list; give a dump with port descriptions');
    case 'bucket-not-live': {
      const watched = [
        note.watchPort ? `port ${portText(note.watchPort)}` : '',
        note.watchGroup !== undefined ? `group ${note.watchGroup}` : '',
      ].filter((x) => x !== '');
      return detail(`bucket ${note.bucket}: not live due to ${watched.join(' and ')}`);
    }
    case 'bucket-chosen':
      return detail(chosenWords(note.bucket, note.by));
    case 'bucket-alternative':
      return detail(alternativeWords(note.by));
    case 'recirculate':
      return detail(
        `A clone of the packet is forked to recirculate (recirc_id ${note.recircId}). The forked pipeline will be resumed at table ${tableLabel(note.table)}.`,
      );
    case 'ct-cleared':
      return detail('Sets the packet to an untracked state, and clears all the conntrack fields.');
  }
}
