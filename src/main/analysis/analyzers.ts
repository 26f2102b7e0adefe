// Every analyzer, in code order: the one list the engine runs and docs/analysis.md documents.
import type { Analyzer } from './analyzer.js';
import { deniedOutbound } from './analyzers/denied-outbound.js';
import { duplicateRouteMatch } from './analyzers/duplicate-route-match.js';
import { outboundWithoutEndpoints } from './analyzers/outbound-without-endpoints.js';
import { overriddenPolicy } from './analyzers/overridden-policy.js';
import { permissionsWithoutMtls } from './analyzers/permissions-without-mtls.js';
import { permissiveMtls } from './analyzers/permissive-mtls.js';
import { retriesBeyondTimeout } from './analyzers/retries-beyond-timeout.js';
import { selectsNothing } from './analyzers/selects-nothing.js';
import { streamIdleBelowRequestTimeout } from './analyzers/stream-idle-below-request-timeout.js';
import { unreachableRouteMatch } from './analyzers/unreachable-route-match.js';
import { zeroWeightRoute } from './analyzers/zero-weight-route.js';

export const ANALYZERS: readonly Analyzer[] = [
  selectsNothing,
  overriddenPolicy,
  unreachableRouteMatch,
  duplicateRouteMatch,
  zeroWeightRoute,
  deniedOutbound,
  permissionsWithoutMtls,
  permissiveMtls,
  retriesBeyondTimeout,
  streamIdleBelowRequestTimeout,
  outboundWithoutEndpoints,
];
