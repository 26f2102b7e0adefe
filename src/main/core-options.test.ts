import { describe, expect, it } from 'vitest';
import { parseCoreOptions, UsageError, wantsHelp } from './core-options.js';

describe('parseCoreOptions', () => {
  it('says where each port came from: a flag wins over its environment variable', () => {
    const options = parseCoreOptions(['--api-port', '6000'], { MESHDESK_API_PORT: '7000', MESHDESK_ADS_PORT: '7001', MESHDESK_DATA_DIR: '/tmp/x' });
    expect(options).toMatchObject({
      apiPort: 6000,
      adsPort: 7001,
      portOrigins: {
        apiPort: { source: 'command line', sourceName: '--api-port' },
        adsPort: { source: 'environment', sourceName: 'MESHDESK_ADS_PORT' },
      },
    });
  });

  it('names the variable a bad port came from', () => {
    expect(() => parseCoreOptions([], { MESHDESK_ADS_PORT: 'x' })).toThrow(new UsageError('MESHDESK_ADS_PORT must be a port number from 0 to 65535, got "x"'));
  });

  it('recognises a request for help anywhere on the command line', () => {
    expect(wantsHelp(['--data-dir', 'd', '--help'])).toBe(true);
    expect(wantsHelp(['-h'])).toBe(true);
    expect(wantsHelp(['--data-dir', 'help'])).toBe(false);
  });
});
