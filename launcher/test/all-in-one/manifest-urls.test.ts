import { absoluteUrls } from '../../src/all-in-one/manifest-urls.js';

test('relative url fields become absolute against the base; absolute and other fields stay', () => {
  const m = {
    now: { content: { sources: [{ media: { url: '/content/files/a?x=1', name: '/not-a-url-field' } }, { media: { url: 'https://cdn.example/b' } }] } },
    next: null,
  };
  expect(absoluteUrls(m, 'https://signage.example.com')).toEqual({
    now: {
      content: {
        sources: [{ media: { url: 'https://signage.example.com/content/files/a?x=1', name: '/not-a-url-field' } }, { media: { url: 'https://cdn.example/b' } }],
      },
    },
    next: null,
  });
});
