// Starts the service model's zone components (controller.ts) on a running core's pieces.
import type { Settings } from '../config/settings.js';
import type { EventBus } from '../events/event-bus.js';
import type { ResourceManager } from '../manager/interfaces.js';
import type { Xds } from '../xds/components.js';
import { ServiceModelController } from './controller.js';

export async function startServiceModel(deps: {
  manager: ResourceManager;
  events: EventBus;
  xds: Xds;
  settings: Settings;
  zone: string;
}): Promise<ServiceModelController> {
  const { statusTracker, identities } = deps.xds;
  const controller = new ServiceModelController({
    manager: deps.manager,
    events: deps.events,
    zone: deps.zone,
    deletionGracePeriodMs: () => deps.settings.get('meshService.deletionGracePeriod'),
    proxyFacts: ({ meta }) => {
      const proxyId = `${meta.mesh}.${meta.name}`;
      return { online: statusTracker.status(proxyId)?.online ?? false, certificateIssued: identities.status(proxyId) !== undefined };
    },
    onProxyChange: (listener) => statusTracker.onStateChange(listener),
  });
  await controller.start();
  return controller;
}
