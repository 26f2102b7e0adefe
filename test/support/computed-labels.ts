/**
 * The labels Kuma computes on every write of a sidecar Dataplane (pkg/core/resources/labels), as
 * meshdesk stores them: a universal zone control plane named `default`. Written out, not computed,
 * so that tests say what a write must store.
 */
export function computedDataplaneLabels(mesh = 'default'): Record<string, string> {
  return {
    'kuma.io/mesh': mesh,
    'kuma.io/origin': 'zone',
    'kuma.io/zone': 'default',
    'kuma.io/env': 'universal',
    'kuma.io/proxy-type': 'sidecar',
  };
}
