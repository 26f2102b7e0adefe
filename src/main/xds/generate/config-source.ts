import type { ProtoJson } from '../protocol/proto-json.js';

/**
 * "Fetch this over the ADS stream you already have". Both Envoy and gRPC accept it, and gRPC
 * accepts nothing else for RDS and EDS (gRFC A27).
 */
export function adsConfigSource(): ProtoJson {
  return { ads: {}, resource_api_version: 'V3' };
}
