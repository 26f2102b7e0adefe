import type { ApiRequest, ApiResponse } from '../../../../shared/bridge.js';
import type { CoreEvent, CoreTopic } from '../../../../shared/events.js';
import type { ConnectionStatus, Transport } from './transport.js';

const TOPICS: readonly CoreTopic[] = ['resource.changed', 'settings.changed', 'proxy.event'];

/**
 * Headless mode: the page is served by the core itself, so the API is this origin (`/settings`,
 * `/events`). Events come as Server-Sent Events; EventSource reconnects by itself after an error.
 */
export class HttpTransport implements Transport {
  readonly name = 'http';

  constructor(private readonly baseUrl = '') {}

  async request({ method, path, body }: ApiRequest): Promise<ApiResponse> {
    const response = await fetch(this.baseUrl + path, {
      method,
      ...(body !== undefined && { body, headers: { 'content-type': 'application/json' } }),
    });
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body: await response.text(),
    };
  }

  subscribe(listener: (event: CoreEvent) => void, onStatus: (status: ConnectionStatus) => void): () => void {
    const source = new EventSource(`${this.baseUrl}/events`);
    onStatus('connecting');
    source.onopen = () => onStatus('live');
    // While EventSource retries, the core is unreachable: events sent meanwhile are lost, so views refetch on 'live'.
    source.onerror = () => onStatus('offline');
    const onMessage = (message: MessageEvent<string>) => listener(JSON.parse(message.data) as CoreEvent);
    for (const topic of TOPICS) source.addEventListener(topic, onMessage);
    return () => source.close();
  }
}
