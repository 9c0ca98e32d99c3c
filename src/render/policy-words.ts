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

const DIMENSION_WORDS: Readonly<Record<DimensionEvidence['dimension'], string>> = { addresses: 'peer addresses', pods: 'applied-to Pods', services: 'services' };

function valuesText(values: readonly string[]): string {
  if (values.length === 0) return 'none';
  return values.length > 6 ? `${values.slice(0, 6).join(', ')}, … (${values.length})` : values.join(', ');
}

/** `peer addresses the same (10.10.0.26)`, `services differ: the rule tcp/80, the flows tcp/8080`. */
export function evidenceText(e: DimensionEvidence): string {
  const what = DIMENSION_WORDS[e.dimension];
  if (e.agreement === 'same') return `${what} the same (${valuesText(e.flows)})`;
  return `${what} ${e.agreement === 'overlap' ? 'overlap' : 'differ'}: the rule ${valuesText(e.rule)}, the flows ${valuesText(e.flows)}`;
}

/** `conjunction 6 = ingress rule 1 of …`, then how sure, and why. */
export function policyLines(m: PolicyMatch): string[] {
  const how = m.confidence === 'exact' ? 'every dimension matches' : 'partial match';
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
    text: ruleName(m.rule),
    confidence: m.confidence,
    evidence: m.evidence.map((e) => ({ ...e, text: evidenceText(e) })),
  };
}
