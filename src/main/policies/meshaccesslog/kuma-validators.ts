// The two govalidator checks Kuma's MeshAccessLog validator uses (asaskevich/govalidator at Kuma
// v2.14.3's version), in TypeScript: IsFilePath for a file backend, IsURL for a TCP one.

const WINDOWS_PATH = /^[a-zA-Z]:\\(?:[^\\/:*?"<>|\r\n]+\\)*[^\\/:*?"<>|\r\n]*$/;
const UNIX_PATH = /^(\/[^/\x00]*)+\/?$/;

export function isFilePath(text: string): boolean {
  if (WINDOWS_PATH.test(text)) return text.length - 3 <= 32767;
  return UNIX_PATH.test(text);
}

const IP = String.raw`(([0-9a-fA-F]{1,4}:){7,7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:)|fe80:(:[0-9a-fA-F]{0,4}){0,4}%[0-9a-zA-Z]{1,}|::(ffff(:0{1,4}){0,1}:){0,1}((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])|([0-9a-fA-F]{1,4}:){1,4}:((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9]))`;
const SCHEMA = String.raw`((ftp|tcp|udp|wss?|https?):\/\/)`;
const USERNAME = String.raw`(\S+(:\S*)?@)`;
const PATH = String.raw`((\/|\?|#)[^\s]*)`;
const PORT = String.raw`(:(\d{1,5}))`;
const URL_IP = String.raw`([1-9]\d?|1\d\d|2[01]\d|22[0-3]|24\d|25[0-5])(\.(\d{1,2}|1\d\d|2[0-4]\d|25[0-5])){2}(?:\.([0-9]\d?|1\d\d|2[0-4]\d|25[0-5]))`;
const SUBDOMAIN = String.raw`((www\.)|([a-zA-Z0-9]+([-_\.]?[a-zA-Z0-9])*[a-zA-Z0-9]\.[a-zA-Z0-9]+))`;
const URL_PATTERN = new RegExp(
  String.raw`^${SCHEMA}?${USERNAME}?((${URL_IP}|(\[${IP}\])|(([a-zA-Z0-9]([a-zA-Z0-9-_]+)?[a-zA-Z0-9]([-\.][a-zA-Z0-9]+)*)|(${SUBDOMAIN}?))?(([a-zA-Z\u00a1-\uffff0-9]+-?-?)*[a-zA-Z\u00a1-\uffff0-9]+)(?:\.([a-zA-Z\u00a1-\uffff]{1,}))?))\.?${PORT}?${PATH}?$`,
  'u',
);

/**
 * govalidator.IsURL: a host and port (`127.0.0.1:5000`, `logging.backend`) or a URL; a bare word
 * without a dot (`not_valid_url`) is a path to Go's url.Parse, and refused.
 */
export function isUrl(text: string): boolean {
  if (text === '' || [...text].length >= 2083 || text.length <= 3 || text.startsWith('.')) return false;
  const parsed = text.includes(':') && !text.includes('://') ? `http://${text}` : text;
  const withScheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)([^?#]*)/.exec(parsed);
  const host = withScheme ? withScheme[1]!.replace(/^.*@/, '') : '';
  const path = withScheme ? withScheme[2]! : parsed.replace(/[?#].*$/, '');
  if (host.startsWith('.')) return false;
  if (host === '' && path !== '' && !path.includes('.')) return false;
  return URL_PATTERN.test(text);
}
