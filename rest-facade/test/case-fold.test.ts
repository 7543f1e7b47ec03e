/** Case-insensitive enums (x-pylon-case-insensitive): read from rest.yaml's operations, folded to the documented spelling. */
import { OpenAPIBackend } from 'openapi-backend';
import { caseFoldsOf, foldCase } from '../src/case-fold.js';
import { loadRestDocument } from '../src/document.js';

test('rest.yaml marks interval on every GET /analytics endpoint and in the dataset body', async () => {
  const api = new OpenAPIBackend({ definition: structuredClone(loadRestDocument().definition), quick: true, validate: false });
  await api.init();
  const folds = caseFoldsOf(api.router.getOperations());
  const analyticsGets = api.router.getOperations().filter((o) => o.method === 'get' && o.path.startsWith('/analytics/'));
  expect(analyticsGets).toHaveLength(14);
  for (const op of analyticsGets) {
    expect([op.operationId, [...(folds.get(op.operationId!)?.query.keys() ?? [])]]).toEqual([op.operationId, ['interval']]);
    // The document still shows the spec's lowercase values only.
    const interval = (op.parameters as { name: string; schema: { enum: string[] } }[]).find((p) => p.name === 'interval')!;
    expect([op.operationId, interval.schema.enum]).toEqual([op.operationId, ['minute', 'hour', 'day', 'week', 'month']]);
  }
  expect([...folds.get('getAnalyticsDataset')!.body.keys()]).toEqual(['interval']);
  // Nothing else is folded: the mark is opt-in.
  expect([...folds.keys()].filter((id) => !analyticsGets.some((o) => o.operationId === id) && id !== 'getAnalyticsDataset')).toEqual([]);
});

test('a value matching the enum in another case takes its documented spelling; others stay for validation to refuse', () => {
  const folds = caseFoldsOf([
    {
      operationId: 'op',
      method: 'post',
      path: '/x',
      responses: {},
      parameters: [
        { name: 'interval', in: 'query', 'x-pylon-case-insensitive': true, schema: { type: 'string', enum: ['minute', 'day'] } },
        { name: 'kind', in: 'query', schema: { type: 'string', enum: ['a'] } },
      ],
      requestBody: {
        content: {
          'application/json': {
            schema: { type: 'object', properties: { interval: { type: 'string', enum: ['day'], 'x-pylon-case-insensitive': true } } },
          },
        },
      },
    } as never,
  ]).get('op');
  const query: Record<string, unknown> = { interval: 'DAY', kind: 'A' };
  const body: Record<string, unknown> = { interval: 'Day' };
  foldCase(folds, { query, body });
  expect({ query, body }).toEqual({ query: { interval: 'day', kind: 'A' }, body: { interval: 'day' } });
  const repeated: Record<string, unknown> = { interval: ['MINUTE', 'fortnight'] };
  foldCase(folds, { query: repeated });
  expect(repeated).toEqual({ interval: ['minute', 'fortnight'] });
  const untouched = { interval: 'DAY' };
  foldCase(undefined, { query: untouched });
  expect(untouched).toEqual({ interval: 'DAY' });
});
