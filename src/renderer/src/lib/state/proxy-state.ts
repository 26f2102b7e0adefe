// A proxy's state in words, for the Proxies table, the proxy header and Connect a proxy: one place says what each state means.
import type { ProxyStatus } from '../../../../shared/api-types.js';

export interface DescribedState {
  label: string;
  /** What it means, for a tooltip. */
  title: string;
  /** ok: configured; busy: on its way; bad: it gets nothing; idle: not connected. */
  tone: 'ok' | 'busy' | 'bad' | 'idle';
}

export function describeState(status: ProxyStatus | undefined): DescribedState {
  if (!status) return { label: 'never seen', title: 'No proxy has connected for this Dataplane (or its records ended with their retention)', tone: 'idle' };
  switch (status.state) {
    case 'connecting':
      return { label: 'connecting', title: 'Its stream is open; its first configuration is being generated', tone: 'busy' };
    case 'waiting':
      return {
        label: 'waiting',
        title: "meshdesk's post-create wait: it sleeps out the cache expiration so that the first generation sees the Dataplane the proxy just registered",
        tone: 'busy',
      };
    case 'configured':
      if (status.stale) {
        return { label: 'stale', title: `Connected, but what it has is not its latest configuration, because ${status.stale.reason}`, tone: 'bad' };
      }
      return { label: 'online', title: 'Connected and sent its configuration', tone: 'ok' };
    case 'no-dataplane':
      return { label: 'no Dataplane', title: 'Connected, but no Dataplane has its node id: it gets no configuration until one is created', tone: 'bad' };
    case 'offline':
      return {
        label: 'offline',
        title:
          status.deregistrationDueAt === undefined
            ? 'Its stream closed'
            : 'Its stream closed; the Dataplane it registered is deleted when the countdown ends, unless it reconnects first',
        tone: 'idle',
      };
    case 'refused':
      return {
        label: 'refused',
        title: status.refusal ? `meshdesk refused it with ${status.refusal.codeName}: ${status.refusal.message}` : 'meshdesk ended its stream with an error',
        tone: 'bad',
      };
  }
}
