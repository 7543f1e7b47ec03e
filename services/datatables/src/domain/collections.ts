import type { CollectionSpec } from '@pylon/kit';

export const DATA_TABLES: CollectionSpec = { name: 'dataTables' };
