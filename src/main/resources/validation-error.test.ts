import { describe, expect, it } from 'vitest';
import { ValidationError, ViolationList } from './validation-error.js';

describe('ValidationError', () => {
  it('lists the title and every violation in its message', () => {
    const error = new ValidationError('Dataplane "dp-1" is not valid', [
      { field: 'networking.inbound[0].tags', message: '"kuma.io/service" is required' },
      { field: '', message: 'line 1, column 3: bad' },
    ]);

    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ValidationError');
    expect(error.title).toBe('Dataplane "dp-1" is not valid');
    expect(error.message).toBe(
      'Dataplane "dp-1" is not valid: networking.inbound[0].tags: "kuma.io/service" is required; line 1, column 3: bad',
    );
  });
});

describe('ViolationList', () => {
  it('does not throw while empty', () => {
    expect(() => new ViolationList().throwIfAny('title')).not.toThrow();
  });

  it('throws every collected violation at once, in order', () => {
    const violations = new ViolationList();
    violations.add('name', 'is required');
    violations.add('networking', 'must be an object');

    expect(() => violations.throwIfAny('resource is not valid')).toThrow(
      expect.objectContaining({
        title: 'resource is not valid',
        violations: [
          { field: 'name', message: 'is required' },
          { field: 'networking', message: 'must be an object' },
        ],
      }),
    );
  });

  it('roots violations from another validator under a prefix', () => {
    const violations = new ViolationList();
    violations.addAll('networking.inbound', [
      { field: '[0].port', message: 'a' },
      { field: 'tags', message: 'b' },
      { field: '', message: 'c' },
    ]);
    violations.addAll('', [{ field: 'name', message: 'd' }]);

    expect(violations.violations).toEqual([
      { field: 'networking.inbound[0].port', message: 'a' },
      { field: 'networking.inbound.tags', message: 'b' },
      { field: 'networking.inbound', message: 'c' },
      { field: 'name', message: 'd' },
    ]);
  });
});
