// Who answers: Kuma's `GET /` (pkg/api-server/index_endpoints.go), which kumactl reads before its commands.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { ApiIndex } from '../../shared/api-types.js';
import { GUI_PATH } from './static-files.js';

/** The Kuma release whose API, resource formats and messages meshdesk follows. */
export const KUMA_API_VERSION = '2.14.3';

const MESHDESK_VERSION = process.env.npm_package_version ?? 'dev';

/**
 * This process as a control plane instance: Kuma names it `<hostname>-<suffix>`; the proxies' insights
 * carry it as `controlPlaneInstanceId`. The cluster id is this run's (meshdesk is one instance, no cluster).
 */
export const CONTROL_PLANE_INSTANCE_ID = `${hostname()}-${process.pid}`;
const CLUSTER_ID = randomUUID();

/**
 * `product: "Kuma"` and Kuma's version, because `kumactl config control-planes add` refuses any other
 * product and every kumactl command warns on another version; `tagline` stays "Kuma" for older kumactl,
 * which compared that. What actually answers is said in `meshdesk` (docs/architecture.md, decision on GET /).
 */
export function apiIndex(): ApiIndex {
  return {
    hostname: hostname(),
    tagline: 'Kuma',
    product: 'Kuma',
    version: KUMA_API_VERSION,
    basedOnKuma: KUMA_API_VERSION,
    instanceId: CONTROL_PLANE_INSTANCE_ID,
    clusterId: CLUSTER_ID,
    gui: `${GUI_PATH}/`,
    meshdesk: { version: MESHDESK_VERSION },
  };
}
