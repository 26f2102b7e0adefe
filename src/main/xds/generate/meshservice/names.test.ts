import { describe, expect, it } from 'vitest';
import { legacyMeshServiceName, meshServiceSni, sectionKri } from './names.js';
import { testMeshService } from './test-resources.js';

const zoned = testMeshService('envoyconfig', 'test-server', { ports: [{ port: 80, name: 'http-port' }] }, { labels: { 'kuma.io/zone': 'kuma-3' } });

describe('MeshService outbound names', () => {
  it('names the cluster by mesh, display name, namespace, zone and port number', () => {
    expect(legacyMeshServiceName(zoned, 80)).toBe('envoyconfig_test-server__kuma-3_msvc_80');
    const displayed = testMeshService('m', 'stored-name', {}, { labels: { 'kuma.io/display-name': 'web', 'k8s.kuma.io/namespace': 'ns' } });
    expect(legacyMeshServiceName(displayed, 8080)).toBe('m_web_ns__msvc_8080');
  });

  it('names the route configuration by the KRI of the section: the port name when it has one', () => {
    expect(sectionKri(zoned, { port: 80, name: 'http-port' })).toBe('kri_msvc_envoyconfig_kuma-3__test-server_http-port');
    expect(sectionKri(zoned, { port: 80, name: '80' })).toBe('kri_msvc_envoyconfig_kuma-3__test-server_80');
  });

  it('sends the SNI a<fnv-1a 64, 16 hex digits>.<name>.<port>.<mesh>.ms', () => {
    expect(meshServiceSni('backend', 'default', 80)).toBe('a601e0c00295a9fbe.backend.80.default.ms');
    // A hash with a leading zero keeps it (Go's %x of the sum's bytes).
    expect(meshServiceSni('test-server', 'envoyconfig', 80)).toBe('a029781856823048e.test-server.80.envoyconfig.ms');
  });

  it('cuts a name longer than 62 characters to 62 and marks the cut, the hash telling such names apart', () => {
    const long = 'a'.repeat(70);
    const sni = meshServiceSni(long, 'default', 80);
    expect(sni.split('.')[1]).toBe(`${'a'.repeat(62)}x`);
    expect(sni).not.toBe(meshServiceSni(`${long}b`, 'default', 80));
  });
});
