import type { DataplaneResource, MeshResource } from '../../../shared/resources.js';
import { ZONE_TAG } from '../../resources/computed-labels.js';

/**
 * The Dataplane as Kuma's generators see it: Kuma's Dataplane manager writes its control plane's
 * zone into every inbound's tags on create and update (setInboundsClusterTag,
 * pkg/core/managers/apis/dataplane), skipping tag-less inbounds of a mesh whose MeshServices are
 * Exclusive. meshdesk keeps the spec as the user wrote it (Kuma's API answers it so too, and export
 * gives it back unchanged) and adds the tag here, where tags become listener metadata, endpoint
 * metadata and locality.
 */
export function withZoneTags(dataplane: DataplaneResource, mesh: MeshResource, zone: string): DataplaneResource {
  const inbounds = dataplane.spec.networking.inbound;
  if (inbounds === undefined) return dataplane;
  const skipTagless = mesh.spec.meshServices?.mode === 'Exclusive';
  const memo = memos.get(dataplane);
  if (memo?.skipTagless === skipTagless && memo.zone === zone) return memo.tagged;
  const tagged: DataplaneResource = {
    ...dataplane,
    spec: {
      ...dataplane.spec,
      networking: {
        ...dataplane.spec.networking,
        inbound: inbounds.map((inbound) =>
          Object.keys(inbound.tags ?? {}).length === 0 && skipTagless ? inbound : { ...inbound, tags: { ...inbound.tags, [ZONE_TAG]: zone } },
        ),
      },
    },
  };
  // Only a frozen Dataplane (as the cached manager hands out) cannot change behind the memo's back.
  if (Object.isFrozen(dataplane) && Object.isFrozen(dataplane.spec)) memos.set(dataplane, { skipTagless, zone, tagged });
  return tagged;
}

/** Per stored Dataplane object: a rebuilt context reuses the tagged copy of every unchanged Dataplane. */
const memos = new WeakMap<DataplaneResource, { skipTagless: boolean; zone: string; tagged: DataplaneResource }>();
