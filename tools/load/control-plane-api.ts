/** The few calls of meshdesk's HTTP API the load generator makes. */
export class ControlPlaneApi {
  constructor(readonly url: string) {}

  /** The control plane's process id, from `GET /` (meshdesk answers it for tools like this one). */
  async pid(): Promise<number | undefined> {
    const index = (await this.#json('GET', '/')) as { pid?: unknown };
    return typeof index.pid === 'number' ? index.pid : undefined;
  }

  async updateSettings(patch: Record<string, string>): Promise<void> {
    await this.#json('PUT', '/settings', patch);
  }

  async putDataplane(dataplane: { mesh: string; name: string }): Promise<void> {
    await this.#json('PUT', `/meshes/${dataplane.mesh}/dataplanes/${dataplane.name}`, dataplane);
  }

  /** Writes a policy (`type`, `mesh`, `name`, `spec`) at its Kuma path, e.g. `/meshes/default/meshtimeouts/<name>`. */
  async putPolicy(policy: { type: string; mesh: string; name: string; spec: unknown }): Promise<void> {
    await this.#json('PUT', `/meshes/${policy.mesh}/${policy.type.toLowerCase()}s/${policy.name}`, policy);
  }

  async deleteDataplane(mesh: string, name: string): Promise<void> {
    const response = await fetch(`${this.url}/meshes/${mesh}/dataplanes/${name}`, { method: 'DELETE' });
    if (!response.ok && response.status !== 404) throw new Error(`DELETE Dataplane "${name}" answered ${response.status}: ${await response.text()}`);
  }

  /**
   * The control plane's event-loop delay p99 since the previous call, in ms: prom-client's
   * `nodejs_eventloop_lag_p99_seconds` resets its histogram on every scrape of `/metrics`.
   */
  async eventLoopLagP99Ms(): Promise<number> {
    const response = await fetch(`${this.url}/metrics`);
    const text = await response.text();
    const match = /^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text);
    if (!match) throw new Error(`${this.url}/metrics has no nodejs_eventloop_lag_p99_seconds`);
    return Number(match[1]) * 1000;
  }

  /** Sum and count of the `xds_generation` histogram for one tick result. */
  async generationTotals(result: string): Promise<{ seconds: number; count: number }> {
    const text = await (await fetch(`${this.url}/metrics`)).text();
    const read = (suffix: string) => Number(new RegExp(`^xds_generation_${suffix}\\{result="${result}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    return { seconds: read('sum'), count: read('count') };
  }

  async #json(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      ...(body !== undefined && { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${this.url}${path} answered ${response.status}: ${text}`);
    return JSON.parse(text);
  }
}
