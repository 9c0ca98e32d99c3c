/**
 * flowscope as a library: what the command line does, as data, and the renderers that turn that
 * data into the same text and JSON the command line prints. Nothing here prints, exits or sets
 * process state; importing it has no side effects. Functions that read files (bundles) say so.
 *
 * The usual path: parseDump → new Pipeline → annotatePipeline (profile given or detected) →
 * findConjunctions / Tracer.tracePacket / checkAnnotated / buildGraph / diffDumps / verifyDump →
 * a renderer (text) or a *Json function and formatJson (JSON).
 */

// ---- Reading dumps
export {
  openBundleInput,
  openSource,
  readPortMap,
  type BundleSpec,
  type FilesSpec,
  type LiveSpecOptions,
  type LocalSpec,
  type OpenedSource,
  type OpenSourceOptions,
  type Parsing,
  type PodSpec,
  type SosreportSpec,
  type SourceDump,
  type SourceExtras,
  type SourceProblem,
  type SourceSpec,
  type StdinSpec,
} from './sources/open.ts';
export { InputReader, type InputStream } from './sources/input.ts';
export { parseDump, type ParseOptions, type ParseResult } from './syntax/reader.ts';
export { parseFiles, type ParsedFiles, type ParseFilesOptions, type RejectedFile } from './sources/parse-files.ts';
export { mergePortMaps, readPortDescriptions } from './sources/port-map.ts';
export { openBundle, selectNode, type Bundle } from './sources/bundle.ts';
export { readNode, type NodeDump } from './sources/node-dump.ts';
export { SourceError, type NodeFile, type NodeFileKind, type NodeSource } from './sources/node.ts';

// ---- The model
export type { Flow, Group, Bucket, Match, MatchField, FlowFlag, FlowStats, Origin } from './model/flow.ts';
export type { Action } from './model/actions.ts';
export type { Diagnostic } from './model/diagnostics.ts';
export { FIELDS, fieldByName, fieldBySubfieldName, type FieldDef } from './model/fields.ts';
export { PortMap, type PortRef } from './model/ports.ts';
export { tableNumber, type TableRef } from './model/tables.ts';
export type { OfVersion } from './model/openflow.ts';
export { Pipeline, type PipelineTable } from './model/pipeline.ts';

// ---- Profiles: which pipeline a dump comes from
export { listProfiles, profileById, type Profile, type TableSpec } from './profiles/index.ts';
export {
  detectProfile,
  detectRelease,
  type Detection,
  type DetectionReason,
  type DetectOptions,
  type ProfileReason,
  type ProfileScore,
  type ReleaseChoice,
  type ReleaseReason,
  type SignalFinding,
} from './analysis/detect/detect-profile.ts';
export {
  annotatePipeline,
  chooseProfile,
  ProfileChoiceError,
  profileTableNames,
  type AnnotatedPipeline,
  type ProfileChoice,
  type ProfileChoiceProblem,
  type ProfileNote,
  type ProfileReleases,
  type ProfileRequest,
} from './analysis/detect/profile-choice.ts';

// ---- Profiles of one's own: checking one, and fitting one to a dump (profile check, profile fit)
export {
  checkProfile,
  checkProfileFile,
  type ProfileFileCheck,
  type ProfileFileProblem,
  flawIsError,
  type ProfileFlaw,
  type ProfileFlawKind,
  type ProfilePath,
} from './analysis/profile/profile-check.ts';
export {
  profileFit,
  type Misfit,
  type MisfitReason,
  type PatternUse,
  type ProfileFit,
  type TableFit,
} from './analysis/profile/profile-fit.ts';
export {
  flawMessage,
  profileCheckJson,
  profileCheckText,
  profileDiagnostics,
  type ProfileDiagnostic,
} from './render/profile-check.ts';
export { profileFitJson, profileFitText, type FitStyle, type FitTextOptions } from './render/profile-fit.ts';

// ---- Annotation: each flow and table in the profile's words (show, tables)
export {
  Annotator,
  type AddressUse,
  type AnnotatedTable,
  type AnnotateOptions,
  type Explanation,
  type FlowAnnotation,
  type MissExplanation,
  type OutputTarget,
  type PatternExplanation,
  type PlaceholderValue,
  type PortUse,
  type SelectedTable,
  type Selection,
  type StateUse,
  type TableInfo,
  type UnknownExplanation,
} from './analysis/annotate/annotate.ts';
export type { AddressLabel, AddressOwner, AddressTag, PortName } from './analysis/annotate/address-book.ts';
export { addressLabelText } from './render/words/address.ts';
export type { BitsValue, DecodedBits } from './analysis/annotate/bit-fields.ts';
export type { PortReading } from './analysis/fit/port-roles.ts';
export {
  PLAIN_WORDING,
  type NamedSubfield,
  type NamedZone,
  type StateReading,
  type Wording,
} from './analysis/annotate/wording.ts';
export { bitsValueWords, bitsWords, maskedBits, stateWords } from './render/words/bits.ts';
export { plainPortWords, portWords } from './render/words/port.ts';
export { subfieldWords, tableNameWords, zoneWords } from './render/words/names.ts';
export { describeAction, describeActions, describeMatch, flowWords } from './render/words/flow.ts';
export {
  explanationJson,
  explanationText,
  outputTargetText,
  patternSentence,
  verdictReasonText,
} from './render/words/explanation.ts';
export { expectedMissWords, missFlowWords } from './render/words/miss.ts';
export { detectionReasonText, profileChoiceProblemText, releaseWords } from './render/words/profile.ts';
export { traceNoteWords } from './render/words/trace-notes.ts';
export {
  summarizeTables,
  type MissFlow,
  type MissingTable,
  type TableRow,
  type TablesSummary,
} from './analysis/annotate/tables-summary.ts';

// ---- Conjunctions
export {
  conjunctionIds,
  findConjunctions,
  type Conjunction,
  type ConjunctionOptions,
  type ConjunctionProblem,
  type ConjunctionReport,
  type Dimension,
  type DimensionTerm,
  type Member,
  type PacketConjunction,
  type PacketDimension,
} from './analysis/conjunctions/conjunctions.ts';
export {
  conjunctionsForPacket,
  type ConjunctionScope,
  type PacketConjunctions,
} from './analysis/conjunctions/conjunction-scope.ts';

// ---- NetworkPolicy rules behind conjunctions (a support bundle's policy objects)
export {
  readPolicyObjects,
  type ControlPlanePolicy,
  type PolicyMember,
  type PolicyObjects,
  type PolicyRule,
  type PolicyService,
} from './sources/antrea-policies.ts';
export {
  matchPipelinePolicies,
  matchPolicies,
  NodePorts,
  type DimensionEvidence,
  type PolicyContext,
  type PolicyDimension,
  type PolicyMatch,
  type PolicyMatching,
  type RuleAction,
  type RuleRef,
} from './analysis/conjunctions/policy-match.ts';
export type { SetComparison } from './model/set-comparison.ts';

// ---- Diff and verify
export {
  diffDumps,
  type Changed,
  type Changes,
  type CompareOptions,
  type Comparison,
  type CountedChanges,
  type DumpDiff,
  type DumpSide,
  type FlowChange,
  type GroupChange,
  type GroupsDiff,
  type PortNamingGap,
  type TableDiff,
} from './analysis/diff/diff.ts';
export {
  verifyDump,
  type GroupVerdict,
  type TableVerdict,
  type Verified,
  type Verification,
  type VerifyOptions,
} from './analysis/diff/verify.ts';
export { namingFor } from './analysis/diff/diff.ts';
export type { Naming } from './model/flow-key.ts';

// ---- What a diff does to traffic (diff --impact)
export {
  diffImpact,
  impactChanges,
  type ChangeImpact,
  type ImpactChange,
  type ImpactOptions,
  type ImpactReport,
  type ProbeEffect,
  type ProbeOutcome,
} from './analysis/impact/impact.ts';
export type { Probe } from './analysis/impact/probes.ts';

// ---- Trace
export { CT_STATE } from './model/ct-state.ts';
export {
  Packet,
  PacketSpecError,
  parsePacketSpec,
  type PacketSpecProblem,
  type PacketSpecResult,
} from './analysis/trace/packet.ts';
export { packetSpecProblemText } from './render/words/packet-spec.ts';
export {
  Tracer,
  type TraceNode,
  type TraceNote,
  type TraceOptions,
  type TracePass,
  type TraceProblem,
  type TraceResult,
  type TraceStep,
  type Verdict,
} from './analysis/trace/trace.ts';
export { TraceBudget, type TraceWork } from './analysis/trace/trace-budget.ts';
export {
  explainTrace,
  explainVerdict,
  type ExplainedTrace,
  type VerdictReason,
} from './analysis/trace/trace-verdict.ts';
export {
  compareTraces,
  type TraceComparison,
  type TraceDivergence,
  type TracedSide,
} from './analysis/trace/trace-compare.ts';

// ---- Check
export {
  checkAnnotated,
  checkPipeline,
  type CheckOptions,
  type CheckReport,
  subjectOf,
  type Finding,
  type FindingKind,
  type FlowFinding,
  type Severity,
} from './analysis/check/check.ts';

// ---- Graph
export {
  buildGraph,
  overlayTrace,
  type GraphEdge,
  type GraphNode,
  type PipelineGraph,
} from './analysis/graph/graph.ts';

// ---- Renderers: the command line's output, made from the data above
export { formatJson } from './render/json-stream.ts';
export { formatFlowCanonical, formatPriorityAndMatch } from './render/flow.ts';
export { formatGroup } from './render/group.ts';
export { formatDiagnostic } from './render/diagnostics.ts';
export {
  PLAIN_SHOW,
  profileHead,
  profileLine,
  showJson,
  showReport,
  showText,
  type ShowReport,
  type ShowStyle,
  type ShowTextOptions,
} from './render/show.ts';
export { formatTables, PLAIN_TABLES, tablesJson, type TablesStyle, type TablesTextOptions } from './render/tables.ts';
export {
  conjunctionsJson,
  conjunctionsText,
  type ConjunctionsTextOptions,
  packetConjunctionsJson,
  packetConjunctionsText,
} from './render/conjunction-words.ts';
export {
  dumpDiffJson,
  dumpsVersion,
  formatDumpDiff,
  formatPerTable,
  formatVerification,
  perTableJson,
  PLAIN as PLAIN_DIFF,
  portNamingHint,
  verificationJson,
  type DiffStyle,
  type DiffTextOptions,
} from './render/diff.ts';
export { formatPacket, formatTrace, traceJson, type TraceRenderOptions } from './render/trace.ts';
export { traceWords } from './render/trace-words.ts';
export type { ByteBound, LazyBound } from './render/text-budget.ts';
export { profiledTracer, sampleAnnotator, type ProfiledTracer } from './analysis/trace/profiled-tracer.ts';
export { checkJson, formatCheck, PLAIN_CHECK, type CheckStyle } from './render/check.ts';
export { formatDot, formatMermaid, graphJson } from './render/graph.ts';
export { formatTraceComparison, traceComparisonJson, type ComparedSide } from './render/trace-compare.ts';
export { formatImpact, impactJson, type ImpactWords } from './render/impact.ts';
export { conjunctionRuleText, evidenceText, policyLines, policyMatchJson, ruleName } from './render/policy-words.ts';
