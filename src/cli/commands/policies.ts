/**
 * The NetworkPolicy rules behind a node's conjunctions, for the commands that name them (conj,
 * trace, check): read from the policy objects of the node's support bundle, when it has them.
 */
import type { Conjunction } from '../../analysis/conjunctions/conjunctions.ts';
import { matchPipelinePolicies, type PolicyMatching } from '../../analysis/conjunctions/policy-match.ts';
import type { AnnotatedPipeline } from '../../analysis/detect/profile-choice.ts';
import { readPolicyObjects } from '../../sources/antrea-policies.ts';
import { findConjunctions } from '../../analysis/conjunctions/conjunctions.ts';
import { annotatePipeline, type ProfileRequest } from '../../analysis/detect/profile-choice.ts';
import type { Flow, Group } from '../../model/flow.ts';
import { Pipeline } from '../../model/pipeline.ts';
import type { TraceRenderOptions } from '../../render/trace.ts';
import { conjunctionRuleText } from '../../render/policy-words.ts';
import { type Io, writeErr } from '../io.ts';
import type { LoadedDump } from '../load.ts';

/** The conjunctions (found only when the dump has policy objects) matched to their rules; undefined without them. */
export function policyMatching(
  dump: LoadedDump,
  io: Io,
  context: () => { readonly read: AnnotatedPipeline; readonly conjunctions: readonly Conjunction[] },
): PolicyMatching | undefined {
  const files = dump.node?.policies;
  const objects = files ? readPolicyObjects(files) : undefined;
  if (!objects) return undefined;
  for (const p of objects.problems) writeErr(io, `flowscope: warning: ${p}`);
  const { read, conjunctions } = context();
  return matchPipelinePolicies(read, objects, conjunctions);
}

/** How a trace renders, naming each conjunction it takes by its rule when the dump has policy objects. */
export function withPolicyRules(
  render: TraceRenderOptions,
  dump: LoadedDump,
  groups: readonly Group[],
  request: ProfileRequest,
  io: Io,
): TraceRenderOptions {
  const policies = policyMatching(dump, io, () => {
    const read = annotatePipeline(new Pipeline(dump.flows, groups, dump.ports), request);
    return { read, conjunctions: findConjunctions(read.pipeline).conjunctions };
  });
  if (!policies) return render;
  return {
    ...render,
    conjunctionRule: (table, id) => {
      const m = policies.byId(table, id);
      return m && conjunctionRuleText(m);
    },
  };
}

/**
 * The rules behind the conjunctions a flow takes part in (a clause flow's `conjunction(id,…)`, a
 * `conj_id=id` flow), as `conjunction 6 = ingress rule 1 of …`; none without policy objects.
 */
export function flowPolicyRules(policies: PolicyMatching | undefined): ((flow: Flow) => string[]) | undefined {
  if (!policies || policies.matches.length === 0) return undefined;
  return (flow) => {
    const conj = flow.match.fields.find((e) => e.field.name === 'conj_id');
    const ids = new Set(
      conj ? [Number(conj.value)] : flow.actions.flatMap((a) => (a.kind === 'conjunction' ? [a.id] : [])),
    );
    return [...ids].flatMap((id) => {
      const m = policies.byId(flow.table, id);
      return m ? [`conjunction ${id} = ${conjunctionRuleText(m)}`] : [];
    });
  };
}
