/**
 * What `flowscope check` needs to know of a product's pipeline beyond its tables: the flows a
 * stock agent installs for a feature that may be off (dormant, not dead), and the patterns its
 * design produces on purpose (a finding there is known, not a defect). Sentences are the
 * product's facts in flowscope's own words.
 */
import type { Profile, TableKey } from './types.ts';

/**
 * Register bits that only a feature's own flows set: a flow that asks for them waits for the
 * feature. `mark` is a bit field of the profile, `value` one of its named values (any non-zero
 * value when absent).
 */
export interface DormantMark {
  readonly mark: string;
  readonly value?: string;
  /** The feature that would set the bits, as a noun phrase. */
  readonly feature: string;
}

/** A conjunction problem, or a shadowed flow, that the design produces in the given tables. */
export interface KnownPattern {
  readonly finding: 'shadowed' | 'conjunction-overlap' | 'conjunction-action-priority';
  /** Profile table names (any release's); the pattern holds in any table when absent. */
  readonly tables?: readonly TableKey[];
  /** For `shadowed`: the covering flow has this priority. */
  readonly byPriority?: number;
  /** For `shadowed`: the covering flow has an empty match. */
  readonly byCatchAll?: boolean;
  /** For `shadowed`: the hidden flow drops. */
  readonly hiddenDrops?: boolean;
  /**
   * `known`: silent unless asked for (the design wants it); `note`: reported as a note, since it
   * follows from what a user configured (a policy rule an earlier rule of the same policy covers).
   */
  readonly standing: 'known' | 'note';
  readonly why: string;
}

export interface CheckKnowledge {
  readonly dormant: readonly DormantMark[];
  readonly known: readonly KnownPattern[];
  /**
   * The agent marks every flow it installs with a non-zero cookie, which ovs-ofctl prints even
   * without statistics: flows without one were written or edited by hand (a document's samples).
   */
  readonly cookieOnEveryFlow?: boolean;
}

const NONE: CheckKnowledge = { dormant: [], known: [] };

const ANTREA: CheckKnowledge = {
  dormant: [
    { mark: 'SvcNoEp', feature: 'a Service without Endpoints (its packets are rejected)' },
    { mark: 'PktDestination', value: 'ToUplink', feature: 'the Node uplink attached to the bridge (connectUplinkToBridge, flexible IPAM)' },
    { mark: 'ToNodePortAddress', feature: 'NodePort Services served by AntreaProxy (proxyAll)' },
    { mark: 'OutputReg', value: 'OutputToController', feature: 'packet-ins to the agent (NetworkPolicy logging or Reject rules)' },
    { mark: 'PacketInOperation', value: 'Logging', feature: 'a NetworkPolicy rule with logging enabled' },
    { mark: 'PacketInOperation', value: 'Reject', feature: 'a NetworkPolicy rule with action Reject' },
    { mark: 'RemoteSNAT', feature: 'an Egress whose IP is on another Node' },
    { mark: 'L7NPRedirect', feature: 'a Layer 7 NetworkPolicy' },
  ],
  known: [
    {
      finding: 'shadowed',
      tables: ['IngressDefaultRule', 'EgressDefaultRule', 'IngressDefaultTable', 'EgressDefaultTable'],
      standing: 'known',
      why: 'Baseline-tier rules sit below the isolation drops of Kubernetes NetworkPolicies in the same table: a Pod a Kubernetes policy isolates is never subject to Baseline rules',
    },
    {
      finding: 'conjunction-overlap',
      tables: ['IngressRule', 'EgressRule', 'IngressRuleTable', 'EgressRuleTable'],
      standing: 'known',
      why: 'Kubernetes NetworkPolicy rules only allow, so which of two overlapping rules a packet meets decides only whose metrics count it',
    },
    {
      finding: 'conjunction-action-priority',
      tables: ['IngressRule', 'EgressRule', 'IngressRuleTable', 'EgressRuleTable'],
      standing: 'known',
      why: 'the agent installs the conj_id flows of Kubernetes NetworkPolicy rules 10 below their clauses',
    },
  ],
};

const OPENSHIFT_SDN: CheckKnowledge = {
  dormant: [],
  known: [
    {
      finding: 'shadowed',
      tables: ['ToService'],
      byPriority: 200,
      byCatchAll: true,
      standing: 'known',
      why: 'in conntrack mode the plugin sends all Service traffic to tun0 at priority 200; the per-Service flows and the drop below it are left from the mode without conntrack',
    },
    {
      finding: 'shadowed',
      tables: ['NetworkPolicyEgress', 'Isolation'],
      hiddenDrops: true,
      standing: 'known',
      why: 'a NetworkPolicy that allows every peer is installed beside the isolation drop of the Pods it selects',
    },
    {
      finding: 'shadowed',
      tables: ['EgressNetworkPolicy', 'EgressNetworkPolicyPre11', 'EgressNetworkPolicyPre4'],
      standing: 'note',
      why: 'an EgressNetworkPolicy applies its first matching rule, and an earlier rule of the same policy covers this one',
    },
  ],
};

/** The flexible pipeline's agents (named tables) give each flow the cookie of its feature and round. */
const ANTREA_FLEXIBLE: CheckKnowledge = { ...ANTREA, cookieOnEveryFlow: true };

export function checkKnowledge(profile: Profile): CheckKnowledge {
  if (profile.id === 'antrea') return ANTREA_FLEXIBLE;
  if (profile.product === 'Antrea') return ANTREA;
  if (profile.product === 'OpenShift SDN') return OPENSHIFT_SDN;
  return NONE;
}
