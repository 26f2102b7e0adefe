// MeshAccessLog's conf (Kuma's api/v1alpha1/meshaccesslog.go), in its universal JSON form.

export interface Format {
  type: 'Plain' | 'Json';
  /** Envoy's command operators and Kuma's `%KUMA_*%` placeholders. */
  plain?: string;
  json?: { key: string; value: string }[];
  omitEmptyValues?: boolean;
}

export interface Backend {
  type: 'Tcp' | 'File' | 'OpenTelemetry';
  /** Sent by kuma-dp to `address`; Envoy writes it to kuma-dp's socket. */
  tcp?: { format?: Format; address: string };
  file?: { format?: Format; path: string };
  openTelemetry?: { endpoint?: string; backendRef?: unknown; attributes?: { key: string; value: string }[]; body?: unknown };
}

/** A `default` block: where the traffic it applies to is logged. Merging replaces the whole list. */
export interface MeshAccessLogConf {
  backends?: Backend[];
}
