import { list, object, type SpecShape } from '../core/spec-shape.js';
import { backendRefShape } from '../core/backend-ref.js';

/** Kuma's MeshTCPRoute schema (rest.yaml): each `to` item's rules, each with its backendRefs. */
export const meshTCPRouteSpecShape: SpecShape = object({
  to: list(object({ rules: list(object({ default: object({ backendRefs: list(backendRefShape) }) })) })),
});
