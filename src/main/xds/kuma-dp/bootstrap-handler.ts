import { X509Certificate } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { Settings } from '../../config/settings.js';
import type { ReadOnlyResourceManager } from '../../manager/interfaces.js';
import { ValidationError } from '../../resources/validation-error.js';
import type { DataplaneTokens } from '../../security/dataplane-tokens.js';
import { storedMesh, tokenRequirement } from '../../security/token-requirement.js';
import { ResourceNotFoundError } from '../../store/errors.js';
import type { ControlPlaneCert } from '../../tls/control-plane-cert.js';
import { bootstrapToYaml, generateEnvoyBootstrap, knownDataplane } from '../generate/bootstrap.js';
import type { Logger } from '../server/stream.js';
import { FEATURE_DELTA_GRPC, MalformedBootstrapRequest, parseBootstrapRequest, type KumaDpBootstrapRequest } from './bootstrap-request.js';

export interface KumaDpBootstrapDependencies {
  manager: ReadOnlyResourceManager;
  settings: Settings;
  tokens: DataplaneTokens;
  /** The ADS port's certificate: the CA for the proxy when kuma-dp sends none, and the SANs the dialed host must be among. */
  cert: ControlPlaneCert;
  logger?: Logger;
}

/** kuma-dp's requests are a few kilobytes; anything far larger is not one. */
const MAX_BODY_BYTES = 1024 * 1024;

/** A request meshdesk refuses with this status and text body (kuma-dp prints `Invalid request: <body>` for a 4xx). */
class BootstrapRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Kuma's DP server `POST /bootstrap`, which `kuma-dp run` calls first: it answers the Envoy
 * bootstrap kuma-dp starts Envoy with. Statuses as Kuma's handler: 400 (empty body) for a body
 * that is not JSON, 422 (text) for an invalid request or a missing token, 400 (text) when the
 * dialed host is not in the certificate, 404 with an empty body for a Dataplane that does not
 * exist yet (kuma-dp retries until it does), 500 otherwise.
 */
export function kumaDpBootstrapHandler(deps: KumaDpBootstrapDependencies): RequestListener {
  const logger = deps.logger ?? console;
  const serverCert = new X509Certificate(deps.cert.cert);
  return (req, res) => {
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'https://localhost').pathname !== '/bootstrap') {
      // Go's text, which kuma-dp recognises as "not a DP server port" rather than retrying.
      return send(res, 404, '404 page not found\n');
    }
    void answer(req, deps, serverCert).then(
      ({ status, body, contentType }) => send(res, status, body, contentType),
      (error: unknown) => {
        if (error instanceof BootstrapRefused) return send(res, error.status, error.message);
        logger.error(`cannot generate a bootstrap for kuma-dp: ${error instanceof Error ? error.message : String(error)}`);
        send(res, 500, '');
      },
    );
  };
}

async function answer(req: IncomingMessage, deps: KumaDpBootstrapDependencies, serverCert: X509Certificate) {
  const request = readRequest(await readBody(req));
  const host = dialedHost(req);
  checkHostInCertificate(host, serverCert, deps.cert.certFile);
  await checkToken(request, deps);
  const dataplane = request.dataplane ?? (await storedDataplane(request, deps.manager));
  const knownDataplanes = (await deps.manager.list('Dataplane')).map(knownDataplane);
  const bootstrap = generateEnvoyBootstrap({
    dataplane,
    adsHost: host,
    adsPort: req.socket.localPort!,
    knownDataplanes,
    xdsProtocol: request.features.includes(FEATURE_DELTA_GRPC) ? 'delta' : 'sotw',
    adsTls: { caCert: request.caCert || deps.cert.cert, serverName: host },
    features: request.features,
    ...(request.workdir !== '' && { workDir: request.workdir }),
    ...(request.dataplaneToken !== '' && { token: request.dataplaneToken }),
  });
  const yaml = bootstrapToYaml(bootstrap);
  if (req.headers.accept !== 'application/json') return { status: 200, body: yaml, contentType: 'text/x-yaml' };
  const response = {
    bootstrap: Buffer.from(yaml).toString('base64'),
    kumaSidecarConfiguration: {
      // meshdesk runs no transparent proxy or DNS for kuma-dp: nothing for kuma-dp's CoreDNS to template.
      networking: { isUsingTransparentProxy: false, corefileTemplate: null, address: dataplane.spec.networking.address },
      metrics: { aggregate: [] },
    },
  };
  return { status: 200, body: JSON.stringify(response), contentType: 'application/json' };
}

function readRequest(body: string): KumaDpBootstrapRequest {
  try {
    return parseBootstrapRequest(body);
  } catch (error) {
    if (error instanceof MalformedBootstrapRequest) throw new BootstrapRefused(400, '');
    if (error instanceof ValidationError) throw new BootstrapRefused(422, error.violations.map(({ field, message }) => `${field}: ${message}`).join('; '));
    throw error;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BootstrapRefused(413, `the bootstrap request is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The host kuma-dp dialed (its `--cp-address`), as Kuma takes it: the Host header without the port. */
function dialedHost(req: IncomingMessage): string {
  const header = req.headers.host ?? '';
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(header);
  if (bracketed) return bracketed[1]!;
  return header.replace(/:\d+$/, '') || (req.socket.localAddress ?? '127.0.0.1');
}

/** Envoy verifies the certificate against the dialed host: refuse now, with the fix, rather than have Envoy fail to connect. */
function checkHostInCertificate(host: string, cert: X509Certificate, certFile: string): void {
  const matches = isIP(host) === 0 ? cert.checkHost(host, { subject: 'never' }) !== undefined : cert.checkIP(host) !== undefined;
  if (matches) return;
  throw new BootstrapRefused(
    400,
    `A data plane proxy is trying to connect to the control plane using "${host}" address, but the certificate in the control plane (${certFile}) has the following SANs: ${cert.subjectAltName}. Change --cp-address in kuma-dp to one of those.`,
  );
}

async function checkToken(request: KumaDpBootstrapRequest, deps: KumaDpBootstrapDependencies): Promise<void> {
  const subject = { mesh: request.mesh, name: request.name };
  const requirement = tokenRequirement(deps.settings.get('xds.dataplaneTokens'), await storedMesh(deps.manager, subject.mesh));
  if (requirement === undefined) return;
  if (request.dataplaneToken === '') {
    throw new BootstrapRefused(
      422,
      `Dataplane Token is required (${requirement}). Save it with GET /meshes/${subject.mesh}/dataplanes/${subject.name}/token on meshdesk's API (curl -o token …) and provide it via --dataplane-token-file=/path/file argument to Kuma DP`,
    );
  }
  const check = deps.tokens.check(subject, request.dataplaneToken);
  if (!check.valid) throw new BootstrapRefused(422, `dataplaneToken: ${check.reason.replace(/^its token/, 'the token')}`);
}

/** Without a Dataplane in the request, the stored one; 404 with an empty body when there is none yet, as Kuma. */
async function storedDataplane(request: KumaDpBootstrapRequest, manager: ReadOnlyResourceManager) {
  try {
    return await manager.get('Dataplane', { mesh: request.mesh, name: request.name });
  } catch (error) {
    if (error instanceof ResourceNotFoundError) throw new BootstrapRefused(404, '');
    throw error;
  }
}

function send(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, body === '' ? {} : { 'content-type': contentType });
  res.end(body);
}
