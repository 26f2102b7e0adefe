// MeshFaultInjection's conf (Kuma's api/v1alpha1/meshfaultinjection.go), in its universal JSON form.

/** An int or a decimal written as a string (`12`, `"62.9"`), Kuma's IntOrString percentage. */
export type Percentage = number | string;

export interface AbortConf {
  httpStatus: number;
  percentage: Percentage;
}

export interface DelayConf {
  /** A duration in Go's syntax (`55s`). */
  value: string;
  percentage: Percentage;
}

export interface ResponseBandwidthConf {
  /** `111Mbps`, `10kbps`, `1Gbps`. */
  limit: string;
  percentage: Percentage;
}

/** One fault: what a destination's sidecar does to a share of the requests it receives. */
export interface FaultInjectionConf {
  abort?: AbortConf;
  delay?: DelayConf;
  responseBandwidth?: ResponseBandwidthConf;
}

/** A `default` block: the faults, each its own filter, in order. Merging replaces the whole list. */
export interface MeshFaultInjectionConf {
  http?: FaultInjectionConf[];
}
