/**
 * Import a file from an address (createMediaFromUrl): the content service downloads it, refusing
 * private, loopback, link-local and metadata addresses unless the operator allow-listed them
 * (MEDIA_IMPORT_ALLOW_LIST); the server's reason is shown as it is, naming the field.
 */
import { useState } from 'react';
import { graphql } from '../gql';
import { gql } from '../lib/api';
import { accepted, handleSubmit, useAction } from '../lib/use-action';
import { ErrorState } from './states';

const CreateMediaFromUrl = graphql(`
  mutation CreateMediaFromUrl($input: CreateMediaFromUrlInput!) {
    createMediaFromUrl(input: $input) {
      success
      error
      errorField
      media {
        id
        name
      }
    }
  }
`);

/** `groupId`: the group chosen on the page ('' for none), where the file goes. */
export function UrlImport(props: { groupId: string; onImported: () => void }) {
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [imported, setImported] = useState<string>();
  const { busy, error, run } = useAction();
  const submit = async () => {
    setImported(undefined);
    await run(async () => {
      const input = { url: url.trim(), name: name.trim() || null, groupId: props.groupId || null };
      const p = accepted((await gql(CreateMediaFromUrl, { input })).createMediaFromUrl, 'the import');
      setImported(p.media?.name ?? url);
      setUrl('');
      setName('');
      props.onImported();
    });
  };
  return (
    <form className="inline-form url-import" aria-label="Import from an address" onSubmit={handleSubmit(submit)}>
      <label>
        Import from address (URL){' '}
        <input type="url" required value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/poster.png" />
      </label>
      <label>
        Name (optional) <input value={name} maxLength={255} onChange={(e) => setName(e.target.value)} />
      </label>
      <button type="submit" disabled={busy || !url.trim()}>
        {busy ? 'Importing…' : 'Import'}
      </button>
      <p className="muted" aria-live="polite" data-testid="import-result">
        {imported && !error ? `Imported ${imported}.` : ''}
      </p>
      {error && <ErrorState error={error} title="Could not import this address." />}
    </form>
  );
}
