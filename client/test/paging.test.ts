/** The paging helpers on their own: RFC 8288 Link parsing, token pages, caps. */
import { collect, followTokens, parseLink, type Result, type TokenPage } from '@pylon/client';

test('parseLink: every rel, relative links resolved, quoted or not', () => {
  const header = '<http://h/devices?take=2&page=0>; rel="first", </devices?take=2&page=1>; rel="next", <http://h/devices?take=2&page=0>; rel=prev';
  expect(parseLink(header, 'http://h/devices?take=2&page=0')).toEqual({
    first: 'http://h/devices?take=2&page=0',
    next: 'http://h/devices?take=2&page=1',
    prev: 'http://h/devices?take=2&page=0',
  });
  expect(parseLink(null)).toEqual({});
});

test('followTokens: pages until the token is null, or until the cap', async () => {
  const pages: Record<string, TokenPage<number>> = {
    start: { data: [1, 2], continuationToken: 'b' },
    b: { data: [3, 4], continuationToken: 'c' },
    c: { data: [5], continuationToken: null },
  };
  const asked: (string | undefined)[] = [];
  const fetchPage = async (t: string | undefined): Promise<Result<TokenPage<number>>> => {
    asked.push(t);
    return { ok: true, value: pages[t ?? 'start']! };
  };
  expect(await collect(followTokens(fetchPage))).toEqual([1, 2, 3, 4, 5]);
  expect(asked).toEqual([undefined, 'b', 'c']);
  asked.length = 0;
  expect(await collect(followTokens(fetchPage, 3))).toEqual([1, 2, 3]);
  expect(asked).toEqual([undefined, 'b']);
});
