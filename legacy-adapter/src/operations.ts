/**
 * The only way the legacy adapter reaches data: persisted operations, run through the
 * GatewayClient with the caller's own credentials. GraphQL errors become AppErrors with the kit's
 * stable codes. A legacy route whose query is the REST endpoint's runs the REST document of that
 * name (in schema/operations/rest.manifest.json), not a copy of it (the legacy records pick their
 * fields from the REST selection); only the documents whose query differs (their variables, a
 * legacy-only field) live in schema/operations/legacy/, and they spread the REST fragments.
 */
import {
  AppError,
  failureError,
  failureFromGraphQL,
  loadOperations,
  type CallerCredentials,
  type GatewayClient,
  type GatewayResult,
  type Logger,
} from '@pylon/kit';
import type { LegacyOperationTypes as OwnOperationTypes } from '@pylon/kit/generated/legacy-operations.generated';
import type { RestOperationTypes } from '@pylon/kit/generated/rest-operations.generated';

/** The documents the legacy adapter runs (legacyDocuments): its own, else the REST one of the same name. */
type LegacyOperationTypes = OwnOperationTypes & Omit<RestOperationTypes, keyof OwnOperationTypes>;
/** A persisted operation's name the legacy adapter can run. */
export type LegacyOperationId = keyof LegacyOperationTypes & string;
/** What a persisted legacy operation answers. */
export type LegacyData<N extends LegacyOperationId> = LegacyOperationTypes[N]['result'];
/** The variables it declares, by name (values are checked by the gateway against the document). */
export type LegacyVariables<N extends LegacyOperationId> = { [K in keyof LegacyOperationTypes[N]['variables']]?: unknown };

export interface OperationRunner {
  /** `observe` sees the gateway's whole answer (the audit trail reads who the caller was). */
  run<N extends LegacyOperationId>(
    operationId: N,
    variables: LegacyVariables<N>,
    caller: CallerCredentials,
    observe?: (result: GatewayResult<unknown>) => void,
  ): Promise<LegacyData<N>>;
}

/** The gateway's errors as one AppError, by the mapper the REST facade uses too (kit failureFromGraphQL). */
export function toAppError(result: GatewayResult<unknown>, operationId: string, logger: Logger): AppError {
  const failure = failureFromGraphQL(result.errors ?? [], result.status);
  if (failure.code === 'INTERNAL' || failure.code === 'UNAVAILABLE' || failure.defect)
    logger.error({ operationId, status: result.status, errors: result.errors }, 'legacy operation failed in the gateway');
  return failureError(failure);
}

/**
 * The documents the legacy adapter may run: its own, and the REST facade's for every name it has no
 * own document for (test/documents.test.ts fails when a legacy document is a copy of the REST one).
 */
export function legacyDocuments(): ReadonlyMap<string, string> {
  return new Map([...loadOperations('rest'), ...loadOperations('legacy')]);
}

export function createOperationRunner(opts: {
  client: GatewayClient;
  logger: Logger;
  required: readonly string[];
  documents?: ReadonlyMap<string, string>;
}): OperationRunner {
  const documents = opts.documents ?? legacyDocuments();
  // Fail at start, not on the first request, when a resource names a document that is not there.
  const missing = opts.required.filter((id) => !documents.has(id));
  if (missing.length) throw new Error(`legacy adapter: missing persisted operations ${missing.join(', ')} in schema/operations/legacy or rest`);
  return {
    async run<N extends LegacyOperationId>(
      operationId: N,
      variables: LegacyVariables<N>,
      caller: CallerCredentials,
      observe?: (result: GatewayResult<unknown>) => void,
    ): Promise<LegacyData<N>> {
      const query = documents.get(operationId);
      if (!query) throw new AppError('INTERNAL', 'internal error');
      const result = await opts.client.execute<LegacyData<N>>({ query, variables, operationName: operationId }, caller);
      observe?.(result);
      // Legacy responses are all or nothing: any error fails the request.
      if (result.errors?.length) throw toAppError(result, operationId, opts.logger);
      if (!result.data) throw toAppError({ status: result.status, errors: [] }, operationId, opts.logger);
      return result.data;
    },
  };
}
