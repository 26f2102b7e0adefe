// Kubernetes' DNS-1035 label rule (apimachinery validation.IsDNS1035Label), which Kuma applies to
// `kuma.io/workload` labels and, as a deprecation warning, to Mesh names; with its exact messages.

const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_1035_MAX_LENGTH = 63;

/** What is wrong with `value` as a DNS-1035 label, in apimachinery's words; empty when it is one. */
export function dns1035LabelProblems(value: string): string[] {
  return [
    ...(value.length > DNS_1035_MAX_LENGTH ? [`must be no more than ${DNS_1035_MAX_LENGTH} characters`] : []),
    ...(DNS_1035_LABEL.test(value)
      ? []
      : [
          "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, " +
            "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        ]),
  ];
}
