/**
 * Packets for tracing the synthetic dump, in ofproto/trace flow syntax. They are made from the
 * dump's parameters alone (addresses and local Pods follow from the seed and size), so a trace
 * measurement can time its cold start from the file without building the dump first.
 *
 * Half leave a local Pod (past SpoofGuard, through the egress policy tables) towards remote Pods,
 * local Pods and Services; half arrive from the tunnel for a local Pod (through the ingress policy
 * tables). Ports come mostly from those NetworkPolicy rules name, so conjunctions match often.
 */
import {
  localPodsOf,
  podIpOn,
  POLICY_PORTS,
  PODS_PER_NODE,
  SERVICE_PORTS,
  serviceIp,
  shapeFor,
  TUNNEL_PORT,
} from './antrea-flows.ts';
import type { DumpParameters } from './generate.ts';
import { Random } from './random.ts';

export function tracePackets(params: DumpParameters, count: number): string[] {
  const shape = shapeFor(params.flows);
  const pods = localPodsOf(params.seed, shape);
  const rnd = new Random(params.seed ^ 0x7ace);
  const remotePodIp = (): string => podIpOn(rnd.int(1, shape.remoteNodes), rnd.int(0, PODS_PER_NODE - 1));
  const l4 = (ports: readonly number[]): string => {
    const proto = rnd.chance(0.15) ? 'udp' : 'tcp';
    const dst = rnd.chance(0.7) ? rnd.pick(ports) : rnd.int(1, 65535);
    return `${proto},tp_src=${rnd.int(32768, 60999)},tp_dst=${dst}`;
  };
  return Array.from({ length: count }, () => {
    const pod = rnd.pick(pods);
    if (rnd.chance(0.5))
      return `in_port=${TUNNEL_PORT},${l4(POLICY_PORTS)},nw_src=${remotePodIp()},nw_dst=${pod.ip},nw_ttl=63`;
    const from = `in_port=${pod.port},dl_src=${pod.mac}`;
    const r = rnd.next();
    if (r < 0.2)
      return `${from},${l4(SERVICE_PORTS)},nw_src=${pod.ip},nw_dst=${serviceIp(rnd.int(0, shape.services - 1))},nw_ttl=64`;
    if (r < 0.4) {
      const peer = rnd.pick(pods);
      return `${from},dl_dst=${peer.mac},${l4(POLICY_PORTS)},nw_src=${pod.ip},nw_dst=${peer.ip},nw_ttl=64`;
    }
    return `${from},${l4(POLICY_PORTS)},nw_src=${pod.ip},nw_dst=${remotePodIp()},nw_ttl=64`;
  });
}
