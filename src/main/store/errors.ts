import type { ResourceKey } from '../../shared/resources.js';

function describe(key: ResourceKey): string {
  return key.mesh ? `${key.type} "${key.name}" in mesh "${key.mesh}"` : `${key.type} "${key.name}"`;
}

export class ResourceNotFoundError extends Error {
  override readonly name = 'ResourceNotFoundError';
  constructor(readonly key: ResourceKey) {
    super(`${describe(key)} not found`);
  }
}

export class ResourceAlreadyExistsError extends Error {
  override readonly name = 'ResourceAlreadyExistsError';
  constructor(readonly key: ResourceKey) {
    super(`${describe(key)} already exists`);
  }
}

/** An update or delete carried a version other than the stored one: someone else wrote first. */
export class ResourceConflictError extends Error {
  override readonly name = 'ResourceConflictError';
  constructor(
    readonly key: ResourceKey,
    readonly expectedVersion: number,
    readonly actualVersion: number,
  ) {
    super(
      `${describe(key)} was modified concurrently: you sent version ${expectedVersion}, the stored version is ${actualVersion}; read it again and retry`,
    );
  }
}

/** A write the resource's relations forbid, e.g. deleting a mesh that still has dataplanes. */
export class ResourcePreconditionError extends Error {
  override readonly name = 'ResourcePreconditionError';
  constructor(
    readonly key: ResourceKey,
    reason: string,
  ) {
    super(`${describe(key)}: ${reason}`);
  }
}
