import { createSubgraph, type DocumentStore, type InternalTokens, type Subgraph } from '@pylon/kit';
import { DataTableRepository } from './data-table.repository.js';
import { dataTablesResolvers } from './graphql/resolvers.js';

export interface DataTablesDeps {
  documents: DocumentStore;
  tokens: InternalTokens;
}

/** The data tables subgraph; main.ts serves it over HTTP, the all-in-one gateway calls it in-process. */
export function createDataTablesSubgraph(deps: DataTablesDeps): Subgraph & { repo: DataTableRepository } {
  const repo = new DataTableRepository(deps.documents);
  const subgraph = createSubgraph({ name: 'datatables', tokens: deps.tokens, resolvers: dataTablesResolvers(repo) });
  return Object.assign(subgraph, { repo });
}
