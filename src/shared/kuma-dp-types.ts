/** `GET /kuma-dp`: how to run Kuma's kuma-dp against this meshdesk. */
export interface KumaDpInstructions {
  /** kuma-dp's `--cp-address`: the ADS port, over TLS. */
  cpAddress: string;
  /** kuma-dp's `--ca-cert-file`: meshdesk's certificate for the ADS port. */
  caCertFile: string;
  /** The whole command line, for a Dataplane in `dp.yaml`. */
  command: string;
}
