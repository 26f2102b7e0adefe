// Which Dataplanes a MeshService selects (Kuma's pkg/core/resources/apis/meshservice/match.go), and
// which of their inbounds serve each of its ports.
import type { MeshServicePort, MeshServiceSpec } from '../../shared/meshservice-types.js';
import type { DataplaneResource, Inbound } from '../../shared/resources.js';

/** Kuma's GetHealthyInbounds: state Ready (the default), and a `health` that says ready when there is one. */
export function isHealthyInbound(inbound: Inbound): boolean {
  return (inbound.state ?? 'Ready') === 'Ready' && (inbound.health === undefined || inbound.health.ready === true);
}

/** Every selector entry is one of the labels (Kubernetes' matchLabels). */
export function matchesLabels(matchLabels: Readonly<Record<string, string>> | undefined, labels: Readonly<Record<string, string>>): boolean {
  return Object.entries(matchLabels ?? {}).every(([key, value]) => labels[key] === value);
}

/**
 * The Dataplanes (of the MeshService's mesh, in name order) its selector picks: by name, by an inbound
 * carrying every tag, or by labels. A Dataplane without (healthy, when asked) inbounds never matches.
 */
export function selectedDataplanes(
  spec: MeshServiceSpec,
  dataplanes: readonly DataplaneResource[],
  { onlyHealthy = false }: { onlyHealthy?: boolean } = {},
): DataplaneResource[] {
  const selector = spec.selector ?? {};
  const inboundsOf = (dataplane: DataplaneResource) => {
    const inbounds = dataplane.spec.networking.inbound ?? [];
    return onlyHealthy ? inbounds.filter(isHealthyInbound) : inbounds;
  };
  const matches = (dataplane: DataplaneResource): boolean => {
    const inbounds = inboundsOf(dataplane);
    if (inbounds.length === 0) return false;
    if (selector.dataplaneRef !== undefined) return selector.dataplaneRef.name === dataplane.meta.name;
    if (selector.dataplaneTags !== undefined) {
      const tags = selector.dataplaneTags;
      return inbounds.some((inbound) => matchesLabels(tags, inbound.tags ?? {}));
    }
    if (selector.dataplaneLabels !== undefined) return matchesLabels(selector.dataplaneLabels.matchLabels, dataplane.meta.labels);
    return false;
  };
  return dataplanes.filter(matches).sort((a, b) => (a.meta.name < b.meta.name ? -1 : a.meta.name > b.meta.name ? 1 : 0));
}

/** A port's `targetPort` names an inbound by port number, or by name when it is text. */
export function inboundServesPort(inbound: Inbound, port: MeshServicePort): boolean {
  if (typeof port.targetPort === 'number') return inbound.port === port.targetPort;
  if (typeof port.targetPort === 'string') return inbound.name === port.targetPort;
  return false;
}
