// The proxy's own values in its outbound access logs, written last (see ProxyBoundValue): every
// proxy with the same outbounds and rules then shares the edited outbound listeners (and every
// later plugin's edit of them), and only the path to each log's text is the proxy's own.
import { SERVICE_TAG, type DataplaneResource } from '../../../shared/resources.js';
import { workloadKri } from '../../resources/kri.js';
import type { MeshContext } from '../../xds/context/mesh-context.js';
import { memoizedForContext } from '../../xds/generate/context-memo.js';
import { ProxyBoundValue } from '../core/proxy-bound.js';
import { accessLogSocketPath, interpolate, type Interpolated, type KumaValues, type LogText } from './access-log.js';

/** Kuma's values that are the proxy's own, whichever way the traffic goes. */
export type OwnValues = Pick<KumaValues, 'sourceIp' | 'mesh' | 'zone' | 'workload'>;

export function ownValues({ meta, spec }: DataplaneResource): OwnValues {
  return { sourceIp: spec.networking.address, mesh: meta.mesh, zone: meta.labels['kuma.io/zone'] ?? '', workload: workloadKri(meta) };
}

/** Kuma's IdentifyingName: the first of the proxy's services in order, else "unknown". */
export function identifyingService({ spec }: DataplaneResource): string {
  const services = [...new Set((spec.networking.inbound ?? []).flatMap((inbound) => inbound.tags?.[SERVICE_TAG] ?? []))].sort();
  return services[0] ?? 'unknown';
}

/** By Dataplane object: every marker of a proxy's outbounds reads the same values. */
const sourceValuesByDataplane = new WeakMap<DataplaneResource, OwnValues & Pick<KumaValues, 'sourceService'>>();

/** The proxy's values on its outbound traffic, where it is the source. */
function sourceValues(dataplane: DataplaneResource): OwnValues & Pick<KumaValues, 'sourceService'> {
  let values = sourceValuesByDataplane.get(dataplane);
  if (values === undefined) sourceValuesByDataplane.set(dataplane, (values = { ...ownValues(dataplane), sourceService: identifyingService(dataplane) }));
  return values;
}

/** kuma-dp's access log socket of the proxy (written only for a proxy that has kuma-dp, a `workdir`). */
export const KUMA_DP_SOCKET = new ProxyBoundValue("kuma-dp's access log socket", ({ workDir, dataplane }) =>
  accessLogSocketPath(workDir ?? '', dataplane.meta.name, dataplane.meta.mesh),
);

/**
 * The texts of the logs on the outbound to `destination`: a template with a Kuma placeholder is
 * a marker that interpolates it with the proxy's values, one marker object per template and
 * destination in a context (edits are shared by their key, so every proxy must get the same one).
 */
export function outboundTexts(context: MeshContext, destination: string): Interpolated {
  const byDestination = memoizedForContext(context, 'meshaccesslog:outbound-texts', () => new Map<string, Map<string, LogText>>());
  let texts = byDestination.get(destination);
  if (texts === undefined) byDestination.set(destination, (texts = new Map()));
  return (template) => {
    // Kuma's interpolation replaces only its placeholders: a template without one is its own text.
    if (!template.includes('%KUMA_')) return template;
    let text = texts.get(template);
    if (text === undefined) {
      const values = ({ dataplane }: { dataplane: DataplaneResource }): KumaValues => ({ ...sourceValues(dataplane), destinationService: destination, direction: 'OUTBOUND' });
      text = new ProxyBoundValue(`the access log format ${JSON.stringify(template)} to ${destination}`, (proxy) => interpolate(template, values(proxy)));
      texts.set(template, text);
    }
    return text;
  };
}
