import type { KumaDpInstructions } from '../../shared/kuma-dp-types.js';
import { dialableAddress } from '../net/dialable-address.js';
import type { ControlPlaneCert } from '../tls/control-plane-cert.js';
import type { AdsAddress } from './inspection-routes.js';
import type { Route } from './router.js';

export interface KumaDpDependencies {
  adsAddress: AdsAddress;
  controlPlaneCert: ControlPlaneCert;
}

/**
 * How to run Kuma's own `kuma-dp` against meshdesk: the ADS port is also Kuma's DP server port
 * (TLS, `POST /bootstrap`), verified with meshdesk's certificate.
 * - `GET /kuma-dp`: the certificate's path and the command line;
 * - `GET /kuma-dp/ca.crt`: the certificate itself (PEM), for a kuma-dp on another file system.
 */
export function kumaDpRoutes(deps: KumaDpDependencies): Route[] {
  return [
    {
      method: 'GET',
      path: '/kuma-dp',
      handler: () => ({ json: kumaDpInstructions(deps) }),
    },
    {
      method: 'GET',
      path: '/kuma-dp/ca.crt',
      handler: () => ({ text: deps.controlPlaneCert.cert, contentType: 'application/x-pem-file' }),
    },
  ];
}

export function kumaDpInstructions(deps: KumaDpDependencies): KumaDpInstructions {
  const { host, port } = dialableAddress(deps.adsAddress);
  const cpAddress = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const caCertFile = deps.controlPlaneCert.certFile;
  return { cpAddress, caCertFile, command: `kuma-dp run --cp-address ${cpAddress} --dataplane-file dp.yaml --ca-cert-file ${caCertFile}` };
}
