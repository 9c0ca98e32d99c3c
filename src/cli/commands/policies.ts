/**
 * The NetworkPolicy rules behind a node's conjunctions, for the commands that name them (conj,
 * trace, check): read from the policy objects of the node's support bundle, when it has them.
 */
import type { Conjunction } from '../../analysis/conjunctions/conjunctions.ts';
import { matchPolicies, NodePorts, type PolicyMatching } from '../../analysis/conjunctions/policy-match.ts';
import type { AnnotatedPipeline } from '../../analysis/detect/profile-choice.ts';
import { readPolicyObjects } from '../../sources/antrea-policies.ts';
import { findConjunctions } from '../../analysis/conjunctions/conjunctions.ts';
import { annotatePipeline, type ProfileRequest } from '../../analysis/detect/profile-choice.ts';
import type { Group } from '../../model/flow.ts';
import { Pipeline } from '../../model/pipeline.ts';
import type { TraceRenderOptions } from '../../render/trace.ts';
import { ruleName } from '../../render/policy-words.ts';
import { type Io, writeErr } from '../io.ts';
import type { LoadedDump } from '../load.ts';

/** The conjunctions (found only when the dump has policy objects) matched to their rules; undefined without them. */
export function policyMatching(dump: LoadedDump, io: Io, context: () => { readonly read: AnnotatedPipeline; readonly conjunctions: readonly Conjunction[] }): PolicyMatching | undefined {
  const files = dump.node?.policies;
  const objects = files ? readPolicyObjects(files) : undefined;
  if (!objects) return undefined;
  for (const p of objects.problems) writeErr(io, `flowscope: warning: ${p}`);
  const { read, conjunctions } = context();
  return matchPolicies(conjunctions, objects, (ref) => read.annotator.tableInfo(ref).name, new NodePorts(dump.flows, read.pipeline.ports));
}

/** How a trace renders, naming each conjunction it takes by its rule when the dump has policy objects. */
export function withPolicyRules(render: TraceRenderOptions, dump: LoadedDump, groups: readonly Group[], request: ProfileRequest, io: Io): TraceRenderOptions {
  const policies = policyMatching(dump, io, () => {
    const read = annotatePipeline(new Pipeline(dump.flows, groups, dump.ports), request);
    return { read, conjunctions: findConjunctions(read.pipeline).conjunctions };
  });
  if (!policies) return render;
  return { ...render, conjunctionRule: (table, id) => {
    const m = policies.byId(table, id);
    return m && ruleName(m.rule) + (m.confidence === 'partial' ? ' (partial match)' : '');
  } };
}
