/** Conjunctions named by the NetworkPolicy rules they implement, in words and as JSON. */
import type { DimensionEvidence, PolicyMatch, RuleRef } from '../analysis/conjunctions/policy-match.ts';
import type { ControlPlanePolicy } from '../sources/antrea-policies.ts';

const KIND_WORDS: Readonly<Record<string, string>> = {
  K8sNetworkPolicy: 'NetworkPolicy',
  AntreaNetworkPolicy: 'Antrea NetworkPolicy',
  AntreaClusterNetworkPolicy: 'Antrea ClusterNetworkPolicy',
  AdminNetworkPolicy: 'AdminNetworkPolicy',
  BaselineAdminNetworkPolicy: 'BaselineAdminNetworkPolicy',
};

/** `NetworkPolicy prod/web-ingress`, `Antrea ClusterNetworkPolicy app-web`. */
export function policyName(p: ControlPlanePolicy): string {
  return `${KIND_WORDS[p.type] ?? p.type} ${p.namespace ? `${p.namespace}/` : ''}${p.name}`;
}

/** `ingress rule 1 ("allow-client-http") of Antrea ClusterNetworkPolicy app-web`. */
export function ruleName(ref: RuleRef): string {
  const named = ref.rule.name ? ` ("${ref.rule.name}")` : '';
  return `${ref.rule.direction === 'In' ? 'ingress' : 'egress'} rule ${ref.index}${named} of ${policyName(ref.policy)}`;
}

/** The rule a conjunction implements, as trace, show and check name it: `ingress rule 1 of …`, `(partial match)` when not every dimension agrees. */
export function conjunctionRuleText(m: PolicyMatch): string {
  return ruleName(m.rule) + (m.confidence === 'partial' ? ' (partial match)' : '');
}

const DIMENSION_WORDS: Readonly<Record<DimensionEvidence['dimension'], string>> = {
  addresses: 'peer addresses',
  pods: 'applied-to Pods',
  services: 'services',
  action: 'action',
};

function valuesText(values: readonly string[]): string {
  if (values.length === 0) return 'none';
  return values.length > 6 ? `${values.slice(0, 6).join(', ')}, … (${values.length})` : values.join(', ');
}

/**
 * `peer addresses the same (10.10.0.26)`; `services overlap: both tcp/80; only the rule tcp/443
 * (no flow matches it); only the flows tcp/8080`; `action differs: the rule Drop, the flows Allow`.
 */
export function evidenceText(e: DimensionEvidence): string {
  const what = DIMENSION_WORDS[e.dimension];
  const { agreement, first: rule, second: flows, both, onlyFirst: ruleOnly, onlySecond: flowsOnly } = e.values;
  if (agreement === 'same') return `${what} the same (${valuesText(flows)})`;
  if (agreement === 'different')
    return `${what} differ${e.dimension === 'action' ? 's' : ''}: the rule ${valuesText(rule)}, the flows ${valuesText(flows)}`;
  const parts = [`both ${valuesText(both)}`];
  if (ruleOnly.length > 0)
    parts.push(`only the rule ${valuesText(ruleOnly)} (no flow matches ${ruleOnly.length === 1 ? 'it' : 'them'})`);
  if (flowsOnly.length > 0) parts.push(`only the flows ${valuesText(flowsOnly)}`);
  return `${what} overlap: ${parts.join('; ')}`;
}

/** A dimension's evidence as the JSON names it: the rule's values, the flows', and which only one of them has. */
function evidenceJson(e: DimensionEvidence): Record<string, unknown> {
  const v = e.values;
  const sets = { rule: v.first, flows: v.second, both: v.both, ruleOnly: v.onlyFirst, flowsOnly: v.onlySecond };
  return { dimension: e.dimension, agreement: v.agreement, ...sets, text: evidenceText(e) };
}

/** `conjunction 6 = ingress rule 1 of …`, then how sure, and why. */
export function policyLines(m: PolicyMatch): string[] {
  const agreeing = m.evidence.filter((e) => e.values.agreement === 'same').length;
  const how =
    m.confidence === 'exact'
      ? 'every dimension matches'
      : `partial match: ${agreeing} of ${m.evidence.length} dimensions the same`;
  return [`rule: ${ruleName(m.rule)} (${how})`, ...m.evidence.map((e) => `  ${evidenceText(e)}`)];
}

export function policyMatchJson(m: PolicyMatch): Record<string, unknown> {
  const p = m.rule.policy;
  return {
    type: p.type,
    ...(p.namespace ? { namespace: p.namespace } : {}),
    name: p.name,
    direction: m.rule.rule.direction,
    rule: m.rule.index,
    ...(m.rule.rule.name ? { ruleName: m.rule.rule.name } : {}),
    ...(m.rule.rule.action ? { action: m.rule.rule.action } : {}),
    text: ruleName(m.rule),
    confidence: m.confidence,
    evidence: m.evidence.map(evidenceJson),
  };
}
