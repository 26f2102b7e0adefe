// MD0012: mTLS in PERMISSIVE mode, Kuma's migration aid: plaintext callers reach every inbound unchecked.
import { enabledBuiltinBackend } from '../../../shared/mesh-mtls.js';
import type { Analyzer } from '../analyzer.js';

export const permissiveMtls: Analyzer = {
  code: 'MD0012',
  severity: 'info',
  title: 'mTLS in PERMISSIVE mode: plaintext callers are let in without a permission check',
  analyze(context) {
    const mtls = context.mesh.spec.mtls;
    const backend = enabledBuiltinBackend(mtls);
    if (!backend || backend.mode !== 'PERMISSIVE') return [];
    const mesh = context.mesh.meta.name;
    const index = (mtls?.backends ?? []).indexOf(backend);
    return [
      {
        code: permissiveMtls.code,
        severity: permissiveMtls.severity,
        message: `Mesh ${mesh} runs mTLS in PERMISSIVE mode: a caller without mTLS reaches every inbound through its plaintext filter chain, where no MeshTrafficPermission is checked`,
        location: { type: 'Mesh', mesh: '', name: mesh, field: `spec.mtls.backends[${index}].mode` },
        related: [],
        proxies: [...context.dataplanesByName.keys()].map((name) => `${mesh}.${name}`),
        fix: 'Once every proxy of the mesh has its certificate, set the mode to STRICT (or remove it: STRICT is the default)',
      },
    ];
  },
};
