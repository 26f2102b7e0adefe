// Kubernetes' DNS-1123 rules (apimachinery validation.IsDNS1123Label / IsDNS1123Subdomain) with their
// messages, which Kuma quotes in MeshService SNI deprecations and HostnameGenerator conditions.

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function dns1123LabelProblems(value: string): string[] {
  const problems = value.length > 63 ? ['must be no more than 63 characters'] : [];
  if (LABEL.test(value)) return problems;
  if (SUBDOMAIN.test(value)) return [...problems, 'must not contain dots'];
  return [
    ...problems,
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character " +
      "(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ];
}

export function dns1123SubdomainProblems(value: string): string[] {
  const problems = value.length > 253 ? ['must be no more than 253 characters'] : [];
  if (SUBDOMAIN.test(value)) return problems;
  return [
    ...problems,
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
      "(e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ];
}
