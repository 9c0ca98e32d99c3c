/** flowscope as a library: parse dumps into the typed model and print them. No side effects on import. */
export { parseDump, type ParseOptions, type ParseResult } from './syntax/reader.ts';
export type { Flow, Group, Bucket, Match, MatchField, FlowFlag, FlowStats, Origin } from './model/flow.ts';
export type { Action } from './model/actions.ts';
export type { Diagnostic } from './model/diagnostics.ts';
export { FIELDS, fieldByName, fieldBySubfieldName, type FieldDef } from './model/fields.ts';
export { PortMap, type PortRef } from './model/ports.ts';
export type { TableRef } from './model/tables.ts';
export type { OfVersion } from './model/openflow.ts';
export { formatFlowCanonical, formatPriorityAndMatch } from './render/flow.ts';
export { formatGroup } from './render/group.ts';
export { formatDiagnostic } from './render/diagnostics.ts';
