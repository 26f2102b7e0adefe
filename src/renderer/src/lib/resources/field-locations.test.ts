import { describe, expect, it } from 'vitest';
import { locateViolations, parseFieldPath } from './field-locations.js';

const DATAPLANE = `type: Dataplane
mesh: default
name: web-1
networking:
  address: 127.0.0.1
  inbound:
    - port: 70000
      tags:
        kuma.io/service: web
        kuma.io/protocol: smtp
`;

function lineOf(field: string, message = 'is wrong', text = DATAPLANE): number {
  return locateViolations(text, [{ field, message }])[0]!.location.line;
}

describe('field locations', () => {
  it("splits Kuma's field paths into names, indexes and quoted keys", () => {
    expect(parseFieldPath('networking.inbound[0].tags["kuma.io/protocol"]')).toEqual(['networking', 'inbound', 0, 'tags', 'kuma.io/protocol']);
    expect(parseFieldPath('')).toEqual([]);
  });

  it('finds each field at its own line', () => {
    expect(lineOf('name')).toBe(3);
    expect(lineOf('networking.address')).toBe(5);
    expect(lineOf('networking.inbound[0].port')).toBe(7);
    expect(lineOf('networking.inbound[0].tags')).toBe(8);
    expect(lineOf('networking.inbound[0].tags["kuma.io/protocol"]')).toBe(10);
  });

  it('marks the key and a scalar value together', () => {
    const [located] = locateViolations(DATAPLANE, [{ field: 'networking.inbound[0].port', message: 'out of range' }]);
    expect(DATAPLANE.slice(located!.location.from, located!.location.to)).toBe('port: 70000');
    expect(located!.exact).toBe(true);
  });

  it('points a missing field at its nearest parent, and says it is not exact', () => {
    const [located] = locateViolations(DATAPLANE, [{ field: 'networking.inbound[0].tags["kuma.io/service"]', message: 'is required' }]);
    expect(located!.location.line).toBe(9);
    const [missing] = locateViolations(DATAPLANE, [{ field: 'networking.outbound[0].port', message: 'is required' }]);
    expect(missing).toMatchObject({ exact: false, location: { line: 4 } });
  });

  it('reads the position of a syntax error from its message', () => {
    expect(lineOf('', 'line 6, column 3: bad indentation')).toBe(6);
    // The list shows the line beside the message: the message must not say it again ("line 6 line 6, …").
    expect(locateViolations(DATAPLANE, [{ field: '', message: 'line 6, column 3: bad indentation' }])[0]!.message).toBe('column 3: bad indentation');
  });

  it('finds fields in JSON text as well', () => {
    expect(lineOf('networking.address', 'bad', '{\n  "type": "Dataplane",\n  "networking": {\n    "address": "x"\n  }\n}')).toBe(4);
  });
});
