// A backend's `conf` (a google.protobuf.Struct) read as its typed message, as Kuma's proto.ToTyped does:
// unknown fields are dropped, a wrong type is "could not parse config".
import { readMessage, type MessageFields } from './proto-json.js';
import { ViolationList } from './validation-error.js';

export function readConf(
  fields: MessageFields,
  conf: Record<string, unknown> | undefined,
  path: string,
  violations: ViolationList,
): Record<string, unknown> | undefined {
  const problems = new ViolationList();
  const config = readMessage(fields, conf ?? {}, '', problems, { ignoreUnknownFields: true });
  if (problems.isEmpty) return config;
  const details = problems.violations.map(({ field, message }) => `${field}: ${message}`).join('; ');
  violations.add(path, `could not parse config: ${details}`);
  return undefined;
}
