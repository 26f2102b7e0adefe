// MeshHTTPRoute's types (Kuma's pkg/plugins/policies/meshhttproute/api/v1alpha1/meshhttproute.go),
// in the universal format's JSON names.
import type { BackendRef } from '../core/backend-ref.js';

export type PathMatchType = 'Exact' | 'PathPrefix' | 'RegularExpression';

export interface PathMatch {
  value: string;
  type: PathMatchType;
}

export interface QueryParamsMatch {
  type: 'Exact' | 'RegularExpression';
  name: string;
  value: string;
}

export type HeaderMatchType = 'Exact' | 'Present' | 'RegularExpression' | 'Absent' | 'Prefix';

export interface HeaderMatch {
  /** Exact when absent. */
  type?: HeaderMatchType;
  name: string;
  value?: string;
}

/** What one request must look like for a rule to apply; every given part must hold. */
export interface HttpMatch {
  path?: PathMatch;
  method?: string;
  queryParams?: QueryParamsMatch[];
  headers?: HeaderMatch[];
}

export interface HeaderKeyValue {
  name: string;
  value: string;
}

export interface HeaderModifier {
  set?: HeaderKeyValue[];
  add?: HeaderKeyValue[];
  remove?: string[];
}

export interface PathRewrite {
  type: 'ReplaceFullPath' | 'ReplacePrefixMatch';
  replaceFullPath?: string;
  replacePrefixMatch?: string;
}

export interface RequestRedirect {
  scheme?: string;
  hostname?: string;
  path?: PathRewrite;
  port?: number;
  /** 301, 302 (the default), 303, 307 or 308. */
  statusCode?: number;
}

export interface UrlRewrite {
  hostname?: string;
  path?: PathRewrite;
  hostToBackendHostname?: boolean;
}

export interface RequestMirror {
  /** Percent of requests to mirror (all when absent): a number or a decimal string. */
  percentage?: number | string;
  backendRef: BackendRef;
}

export type FilterType = 'RequestHeaderModifier' | 'ResponseHeaderModifier' | 'RequestRedirect' | 'URLRewrite' | 'RequestMirror';

export interface HttpFilter {
  type: FilterType;
  requestHeaderModifier?: HeaderModifier;
  responseHeaderModifier?: HeaderModifier;
  requestRedirect?: RequestRedirect;
  urlRewrite?: UrlRewrite;
  requestMirror?: RequestMirror;
}

export interface HttpRuleConf {
  filters?: HttpFilter[];
  backendRefs?: BackendRef[];
}

/** One routing rule: its matches, and where (and how) matching requests go. */
export interface HttpRouteRule {
  matches?: HttpMatch[];
  default: HttpRuleConf;
}

/**
 * The conf of a MeshHTTPRoute `to` rule (Kuma's PolicyDefault): the rules of every item that
 * applies to a destination, merged by their matches (same matches, later item wins).
 */
export interface MeshHTTPRouteConf {
  rules?: HttpRouteRule[];
  /** Gateways only. */
  hostnames?: string[];
}
