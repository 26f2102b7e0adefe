import type { Violation } from '../../shared/resources.js';
import { joinPath } from './field-path.js';

function formatViolation({ field, message }: Violation): string {
  return field === '' ? message : `${field}: ${message}`;
}

/**
 * A resource (or its text) broke one or more rules. Carries every violation by field path, Kuma style;
 * the message lists them all so that logs and gRPC statuses are readable on their own.
 */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  readonly violations: Violation[];

  constructor(
    readonly title: string,
    violations: readonly Violation[],
  ) {
    super(`${title}: ${violations.map(formatViolation).join('; ')}`);
    this.violations = [...violations];
  }
}

/** Collects violations while a validator walks a resource, so that all of them are reported at once. */
export class ViolationList {
  readonly #violations: Violation[] = [];

  add(field: string, message: string): void {
    this.#violations.push({ field, message });
  }

  /** Adds violations found by another validator, re-rooting their fields under `prefix`. */
  addAll(prefix: string, violations: readonly Violation[]): void {
    for (const { field, message } of violations) this.add(joinPath(prefix, field), message);
  }

  get isEmpty(): boolean {
    return this.#violations.length === 0;
  }

  get violations(): readonly Violation[] {
    return this.#violations;
  }

  throwIfAny(title: string): void {
    if (!this.isEmpty) throw new ValidationError(title, this.#violations);
  }
}
