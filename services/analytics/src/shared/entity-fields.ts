/** The record types' links to other subgraphs: entity references by key (the devices and content subgraphs resolve them, null once deleted) and device names. */
import type { SubgraphContext } from '@pylon/kit';
import type { ReportDirectory } from '../ports/report-directory.js';
import { deviceNameLoader } from './loaders.js';

export const device = (r: { deviceId: string }) => ({ id: r.deviceId });
export const file = (r: { fileId: string }) => ({ id: r.fileId });

/** `deviceName`; without a directory (a subgraph built for tests alone) names stay null, the entity reference still resolves. */
export const deviceNameField = (directory: ReportDirectory | undefined) => (r: { deviceId: string }, _args: unknown, ctx: SubgraphContext) =>
  directory && r.deviceId ? deviceNameLoader(directory, ctx).load(r.deviceId) : null;
