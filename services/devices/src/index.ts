export { createDevicesSubgraph, type DevicesDeps } from './app.js';
export { DeviceRepository } from './device.repository.js';
export type { DeviceRecord, DeviceGroupRecord } from './domain/device.js';
