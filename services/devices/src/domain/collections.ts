import type { CollectionSpec } from '@pylon/kit';

export const DEVICES: CollectionSpec = {
  name: 'devices',
  uniqueIndexes: [{ name: 'registrationKey', fields: ['registrationKey'], scope: 'global' }],
};
export const DEVICE_GROUPS: CollectionSpec = { name: 'deviceGroups' };
export const DISPLAY_COMMANDS: CollectionSpec = {
  name: 'displayCommands',
  uniqueIndexes: [{ name: 'command', fields: ['command'] }],
};
