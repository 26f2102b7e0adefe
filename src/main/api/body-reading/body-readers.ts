// What each endpoint that takes a resource body makes of its text: parsed and validated, nothing
// else, so that the same function runs on the event loop for a small body and in a worker for a large one.
import { isPolicyType } from '../../../shared/policy-types.js';
import type { ResourceInput, ResourceType } from '../../../shared/resources.js';
import { parseResourceText } from '../../resources/parse.js';
import { rememberValidatedSpec, validateResource, type ExpectedResource } from '../../resources/validate.js';
import { readImportText, type ImportDocument } from '../../transfer/import.js';
import { ApiError } from '../api-error.js';
import { requireValidLabels } from '../label-rules.js';
import { parseBody } from './parse-body.js';

interface BodyReader<Args, Result> {
  read(text: string, args: Args): Result;
  /** The validated inputs in a result: read in a worker, they are remembered as validated here too (rememberValidatedSpec). */
  inputsOf(result: Result): readonly ResourceInput[];
}

const single = (input: ResourceInput) => [input];

export const BODY_READERS = {
  /** `PUT` of a resource: checked against the type, mesh and name of its URL, its labels by Kuma's API rules. */
  resource: {
    read(text: string, expected: ExpectedResource & { type: ResourceType }): ResourceInput {
      const read = validateResource(parseBody(expected.type, text), expected);
      requireValidLabels(read, `${read.type} "${read.name}" is not valid`);
      return read;
    },
    inputsOf: single,
  },
  /** A policy to preview, in the mesh of the URL; it must say which policy type it is. */
  policy: {
    read(text: string, { mesh }: { mesh: string }): ResourceInput {
      const raw = parseBody('policy', text);
      const type = (raw as { type?: unknown } | null)?.type;
      if (typeof type !== 'string' || !isPolicyType(type)) {
        throw new ApiError(400, 'Bad Request', `a preview takes one policy, got ${type === undefined ? 'no type' : `type ${JSON.stringify(type)}`}`, [
          { field: 'type', message: 'must be a policy type (GET /_resources lists them)' },
        ]);
      }
      return validateResource(raw, { type, mesh });
    },
    inputsOf: single,
  },
  /** A Dataplane to render a bootstrap for, not stored. */
  dataplane: {
    read(text: string): ResourceInput<'Dataplane'> {
      return validateResource(parseResourceText(text), { type: 'Dataplane' });
    },
    inputsOf: single,
  },
  /** Every resource of an import, validated, Meshes first. */
  import: {
    read(text: string): ImportDocument[] {
      return readImportText(text);
    },
    inputsOf: (documents: ImportDocument[]) => documents.map((document) => document.input),
  },
} satisfies Record<string, BodyReader<never, unknown>>;

export type BodyReaderName = keyof typeof BODY_READERS;
export type BodyReaderArgs<K extends BodyReaderName> = Parameters<(typeof BODY_READERS)[K]['read']>[1];
export type BodyReaderResult<K extends BodyReaderName> = ReturnType<(typeof BODY_READERS)[K]['read']>;

function readerOf<K extends BodyReaderName>(reader: K): BodyReader<BodyReaderArgs<K>, BodyReaderResult<K>> {
  return BODY_READERS[reader] as unknown as BodyReader<BodyReaderArgs<K>, BodyReaderResult<K>>;
}

/** Runs a reader by name, on whichever thread calls it. */
export function readBodyText<K extends BodyReaderName>(reader: K, text: string, args: BodyReaderArgs<K>): BodyReaderResult<K> {
  return readerOf(reader).read(text, args);
}

/** A result a worker read, carried back: its inputs are known validated in this thread too. */
export function rememberValidated<K extends BodyReaderName>(reader: K, result: BodyReaderResult<K>): BodyReaderResult<K> {
  for (const input of readerOf(reader).inputsOf(result)) rememberValidatedSpec(input);
  return result;
}
