import { status } from '@grpc/grpc-js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiscoveryResponse, Node } from '../../src/main/xds/protocol/ads-service.js';
import {
  CLUSTER_TYPE_URL,
  ENDPOINT_TYPE_URL,
  LISTENER_TYPE_URL,
  ROUTE_TYPE_URL,
  XDS_TYPE_URLS,
  holdsEveryResource,
} from '../../src/main/xds/protocol/type-urls.js';
import { AdsServer } from '../../src/main/xds/server/ads-server.js';
import { SnapshotCache } from '../../src/main/xds/server/snapshot-cache.js';
import { fixtureSnapshot } from '../../src/main/xds/server/testing/fixtures.js';
import { RawAdsClient, resourceNames, withProbe } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { LONG_TIMEOUT_MS, numRuns } from './run-counts.js';

/**
 * Random DiscoveryRequest sequences against a real ADS server over loopback. A model of the
 * client's side (what it subscribed to, the latest nonce per type, the snapshot in force) checks
 * every response; a second stream replaying the sequence without its stale requests must get the
 * very same responses, which proves a stale request changes nothing.
 */

const NAMES = ['a', 'b', 'c'] as const;
/** Types the snapshot never holds: the server must ignore them, not fail. */
const UNKNOWN_TYPES = ['type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig', 'type.googleapis.com/no.such.Type', 'not a type url'];

/** Resource names per type; an absent type is missing from the snapshot (never answered). */
type SnapshotSpec = Partial<Record<string, string[]>>;

type NonceChoice = { kind: 'current' } | { kind: 'stale'; pick: number } | { kind: 'random'; value: string } | { kind: 'empty' };

interface RequestStep {
  kind: 'request';
  typeUrl: string;
  names: string[];
  nonce: NonceChoice;
  version: 'accepted' | 'random' | 'empty';
  nack: boolean;
  node: 'first-only' | 'absent' | 'other';
}

interface SnapshotStep {
  kind: 'snapshot';
  spec: SnapshotSpec;
}

type Step = RequestStep | SnapshotStep;

/** The types `snapshotOf` builds resources of; requests still name every type (secrets then have none). */
const SNAPSHOT_TYPES = [CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL] as const;

const snapshotSpec: fc.Arbitrary<SnapshotSpec> = fc.record(
  Object.fromEntries(SNAPSHOT_TYPES.map((typeUrl) => [typeUrl, fc.subarray([...NAMES])])),
  { requiredKeys: [] },
) as fc.Arbitrary<SnapshotSpec>;

const requestStep: fc.Arbitrary<RequestStep> = fc.record({
  kind: fc.constant('request' as const),
  typeUrl: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...XDS_TYPE_URLS) }, { weight: 1, arbitrary: fc.constantFrom(...UNKNOWN_TYPES) }),
  names: fc.subarray(['a', 'b', 'c', 'missing', '*']),
  nonce: fc.oneof(
    { weight: 5, arbitrary: fc.constant({ kind: 'current' } as const) },
    { weight: 2, arbitrary: fc.nat().map((pick) => ({ kind: 'stale', pick }) as const) },
    { weight: 1, arbitrary: fc.string({ maxLength: 4 }).map((value) => ({ kind: 'random', value }) as const) },
    { weight: 1, arbitrary: fc.constant({ kind: 'empty' } as const) },
  ),
  version: fc.constantFrom('accepted', 'random', 'empty'),
  nack: fc.boolean(),
  node: fc.constantFrom('first-only', 'absent', 'other'),
});

const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof({ weight: 4, arbitrary: requestStep }, { weight: 1, arbitrary: snapshotSpec.map((spec) => ({ kind: 'snapshot', spec }) as const) }),
  { minLength: 1, maxLength: 25 },
);

function snapshotOf(spec: SnapshotSpec, generation: number) {
  // Each generation changes the content of listeners, routes and endpoints, not of clusters: both
  // "changed" and "same content, new version" happen.
  return withProbe(
    fixtureSnapshot(`v${generation}`, {
      ...(spec[CLUSTER_TYPE_URL] && { clusters: spec[CLUSTER_TYPE_URL] }),
      ...(spec[ENDPOINT_TYPE_URL] && { endpoints: spec[ENDPOINT_TYPE_URL].map((name) => [name, generation + 1] as [string, number]) }),
      ...(spec[LISTENER_TYPE_URL] && { listeners: spec[LISTENER_TYPE_URL].map((name) => [name, `route-${generation}`] as [string, string]) }),
      ...(spec[ROUTE_TYPE_URL] && { routes: spec[ROUTE_TYPE_URL].map((name) => [name, `cluster-${generation}`] as [string, string]) }),
    }),
  );
}

/** What the client knows and asked for, for one type. */
interface TypeModel {
  latestNonce?: string;
  latestVersion?: string;
  /** A request of this type was acted on (not stale): the type is subscribed. */
  requested: boolean;
  legacyWildcard: boolean;
  wildcard: boolean;
  names: Set<string>;
  /** Names the client holds: the last LDS/CDS response; everything received and still subscribed for RDS/EDS. */
  holds: Set<string>;
}

/** A response as two streams can compare them (nonces differ: the probes count too). */
interface Seen {
  typeUrl: string;
  version: string;
  names: string[];
}

interface Played {
  /** Per step: was it a stale request, and the responses it caused. */
  outcomes: { stale: boolean; responses: Seen[] }[];
}

/** The xDS rules the model expects, from the spec: legacy wildcard only for LDS/CDS, while no names are sent. */
function applyRequest(model: TypeModel, typeUrl: string, names: string[]): void {
  const legacy = names.length === 0 && holdsEveryResource(typeUrl) && (!model.requested || model.legacyWildcard);
  model.legacyWildcard = legacy;
  model.wildcard = legacy || names.includes('*');
  model.names = new Set(names.filter((name) => name !== '*'));
  model.requested = true;
  if (!model.wildcard) model.holds = new Set([...model.holds].filter((name) => model.names.has(name)));
}

function expectedNames(model: TypeModel, existing: readonly string[]): Set<string> {
  return new Set(existing.filter((name) => model.wildcard || model.names.has(name)));
}

/**
 * Plays the steps on a new stream, checking every response against the model. `replay` sends every
 * request with the current nonce (a replay holds no stale request: only their absence is compared).
 */
async function play(port: number, cache: SnapshotCache, nodeId: string, initial: SnapshotSpec, all: Step[], replay = false): Promise<Played> {
  let generation = 0;
  let spec = initial;
  cache.setSnapshot(nodeId, snapshotOf(spec, generation));
  const client = new RawAdsClient(port, { id: nodeId });
  const models = new Map<string, TypeModel>();
  const model = (typeUrl: string) => {
    let found = models.get(typeUrl);
    if (!found) models.set(typeUrl, (found = { requested: false, legacyWildcard: false, wildcard: false, names: new Set(), holds: new Set() }));
    return found;
  };
  const nonces: string[] = [];
  const outcomes: Played['outcomes'] = [];
  try {
    expect(await client.barrier()).toEqual([]); // sends the node
    for (const [index, step] of all.entries()) {
      const where = `step ${index} (${JSON.stringify(step)})`;
      let stale = false;
      if (step.kind === 'snapshot') {
        generation += 1;
        spec = step.spec;
        cache.setSnapshot(nodeId, snapshotOf(spec, generation));
      } else {
        const typeModel = model(step.typeUrl);
        const nonce = replay ? (typeModel.latestNonce ?? '') : resolveNonce(step.nonce, typeModel, nonces);
        stale = typeModel.latestNonce !== undefined && nonce !== typeModel.latestNonce;
        client.send(step.typeUrl, {
          names: step.names,
          nonce,
          version: step.version === 'accepted' ? (typeModel.latestVersion ?? '') : step.version === 'random' ? 'v-random' : '',
          ...(step.nack && { errorDetail: { code: status.INVALID_ARGUMENT, message: 'fuzz: rejected' } }),
          ...(step.node === 'absent' && { node: null }),
          ...(step.node === 'other' && { node: { id: 'default.someone-else' } satisfies Node }),
        });
        if (!stale) applyRequest(typeModel, step.typeUrl, step.names);
      }
      const responses = await client.barrier(); // also checks: nonce unique, no name twice, Anys of the right type
      const seen = responses.map((response) => check(response, where));
      outcomes.push({ stale, responses: seen });
      nonces.push(...responses.map((response) => response.nonce));

      if (stale) expect(seen, `${where}: a stale request caused a response`).toEqual([]);
      if (step.kind === 'request') {
        expect(seen.every((response) => response.typeUrl === step.typeUrl), `${where}: a request answered another type`).toBe(true);
      } else {
        const order = seen.map((response) => XDS_TYPE_URLS.indexOf(response.typeUrl as (typeof XDS_TYPE_URLS)[number]));
        expect(order, `${where}: pushes out of CDS → EDS → LDS → RDS order`).toEqual([...order].sort((a, b) => a - b));
      }
      expect(new Set(seen.map((response) => response.typeUrl)).size, `${where}: two responses of one type for one step`).toBe(seen.length);
      checkClientIsUpToDate(where);
    }
    return { outcomes };
  } finally {
    client.close();
  }

  /** Every response holds exactly the subscribed resources that exist, at the version in force. */
  function check(response: DiscoveryResponse, where: string): Seen {
    const typeModel = model(response.type_url);
    const existing = spec[response.type_url];
    expect(existing, `${where}: answered ${response.type_url}, which the snapshot does not hold`).toBeDefined();
    expect(typeModel.requested, `${where}: answered ${response.type_url}, which was never requested`).toBe(true);
    expect(response.version_info, `${where}: stale version`).toBe(`v${generation}`);
    const names = resourceNames(response);
    expect(new Set(names), `${where}: ${response.type_url} response does not hold exactly the subscribed resources`).toEqual(
      expectedNames(typeModel, existing!),
    );
    typeModel.latestNonce = response.nonce;
    typeModel.latestVersion = response.version_info;
    typeModel.holds = holdsEveryResource(response.type_url) ? new Set(names) : new Set([...typeModel.holds, ...names]);
    return { typeUrl: response.type_url, version: response.version_info, names: [...names].sort() };
  }

  /** After every step, the client holds what it subscribed to: exactly, for LDS/CDS (a missing one means deleted). */
  function checkClientIsUpToDate(where: string): void {
    for (const [typeUrl, typeModel] of models) {
      const existing = spec[typeUrl];
      if (!typeModel.requested || !existing) continue;
      const expected = expectedNames(typeModel, existing);
      if (holdsEveryResource(typeUrl)) expect(typeModel.holds, `${where}: ${typeUrl} is not complete`).toEqual(expected);
      else for (const name of expected) expect(typeModel.holds.has(name), `${where}: ${typeUrl} "${name}" never sent`).toBe(true);
    }
  }
}

function resolveNonce(choice: NonceChoice, typeModel: TypeModel, seen: readonly string[]): string {
  switch (choice.kind) {
    case 'current':
      return typeModel.latestNonce ?? '';
    case 'stale': {
      const older = seen.filter((nonce) => nonce !== typeModel.latestNonce);
      return older.length === 0 ? 'never-sent' : older[choice.pick % older.length]!;
    }
    case 'random':
      return choice.value;
    case 'empty':
      return '';
  }
}

let server: AdsServer;
let cache: SnapshotCache;
let port: number;
let runs = 0;

beforeAll(async () => {
  cache = new SnapshotCache();
  server = new AdsServer({ snapshots: cache, logger: { error: (message, ...details) => { throw new Error(`${message} ${details.join(' ')}`); } } });
  port = await server.start({ port: 0 });
});

afterAll(async () => {
  await server.stop();
});

describe('random DiscoveryRequest sequences (State of the World)', () => {
  it(
    'get responses that hold exactly the subscribed resources, never a name twice, and stale requests change nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(snapshotSpec, steps, async (initial, sequence) => {
          runs += 1;
          const played = await play(port, cache, `default.fuzz-${runs}`, initial, sequence);
          // The same sequence without its stale requests, on a fresh stream: the same responses.
          const kept = sequence.filter((_, index) => !played.outcomes[index]!.stale);
          const replayed = await play(port, cache, `default.replay-${runs}`, initial, kept, true);
          expect(replayed.outcomes.map((outcome) => outcome.responses)).toEqual(
            played.outcomes.filter((outcome) => !outcome.stale).map((outcome) => outcome.responses),
          );
        }),
        { numRuns: numRuns(25, 1000) },
      );
      expect(server.streams().filter((stream) => stream.nodeId?.startsWith('default.fuzz-'))).toHaveLength(0);
    },
    LONG_TIMEOUT_MS,
  );

  it(
    'end a stream only with INVALID_ARGUMENT naming the problem, leaving the other streams served',
    async () => {
      const bystander = new RawAdsClient(port, { id: 'default.bystander' });
      cache.setSnapshot('default.bystander', withProbe(new Map()));
      await bystander.barrier();
      const fatal = fc.constantFrom(
        { problem: 'no node', first: true, expected: /carries no node\.id$/ },
        { problem: 'empty node id', first: true, expected: /carries no node\.id$/ },
        { problem: 'no type_url', first: false, expected: /sent a DiscoveryRequest without type_url, which ADS requires$/ },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(requestStep, { maxLength: 5 }), fatal, async (prefix, { problem, first, expected }) => {
          runs += 1;
          const nodeId = `default.fatal-${runs}`;
          cache.setSnapshot(nodeId, snapshotOf({ [CLUSTER_TYPE_URL]: ['a'], [LISTENER_TYPE_URL]: ['a'] }, 0));
          const client = new RawAdsClient(port, { id: nodeId });
          try {
            if (!first) for (const step of prefix) client.send(step.typeUrl, { names: step.names, nonce: '' });
            if (problem === 'no node') client.send(CLUSTER_TYPE_URL, { node: null });
            else if (problem === 'empty node id') client.send(CLUSTER_TYPE_URL, { node: { id: '' } });
            else client.send('');
            const closed = await client.status;
            expect(closed.code).toBe(status.INVALID_ARGUMENT);
            expect(closed.details).toMatch(expected);
          } finally {
            client.close();
          }
        }),
        { numRuns: numRuns(10, 200) },
      );
      expect(await bystander.barrier()).toEqual([]);
      bystander.close();
    },
    LONG_TIMEOUT_MS,
  );
});
