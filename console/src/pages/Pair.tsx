/** Pairing: the code a /play screen shows, looked up, then claimed under a name. */
import { useState } from 'react';
import { Empty, ErrorState } from '../components/states';
import { graphql } from '../gql';
import type { LookUpPairingQuery } from '../gql/graphql';
import { gql } from '../lib/api';
import { useRights } from '../lib/permissions';
import { Link, navigate } from '../lib/router';
import { useAction } from '../lib/use-action';

const LookUpPairing = graphql(`
  query LookUpPairing($code: String!) {
    pairingRequest(code: $code) {
      code
      expiresAt
      userAgent
      screenWidth
      screenHeight
    }
  }
`);

const ClaimScreen = graphql(`
  mutation ClaimScreen($code: String!, $name: String) {
    claimDevice(code: $code, name: $name) {
      success
      error
      device {
        id
        name
      }
    }
  }
`);

export function PairPage() {
  const rights = useRights();
  const [code, setCode] = useState('');
  const [name, setName] = useState('');
  const [found, setFound] = useState<NonNullable<LookUpPairingQuery['pairingRequest']> | null>();
  const { busy, error, submit } = useAction();
  if (!rights.can('Devices', 'edit'))
    return (
      <section>
        <h1>Pair a screen</h1>
        <Empty title="Your role cannot add screens">
          <p>Ask an account owner or an editor to pair it.</p>
        </Empty>
      </section>
    );
  const lookUp = submit(async () => setFound((await gql(LookUpPairing, { code: code.trim().toUpperCase() })).pairingRequest ?? null));
  const claim = submit(async () => {
    const r = (await gql(ClaimScreen, { code: found!.code, name: name.trim() || null })).claimDevice;
    if (!r?.success || !r.device) throw new Error(r?.error ?? 'the screen could not be claimed');
    navigate(`/console/screens/${encodeURIComponent(r.device.id)}`);
  });
  return (
    <section>
      <h1>Pair a screen</h1>
      <p>
        Open <code>{location.origin}/play</code> in the screen's browser: it shows a pairing code. Type it here.
      </p>
      <form className="stack" onSubmit={lookUp}>
        <label>
          Pairing code
          <input value={code} onChange={(e) => setCode(e.target.value)} autoComplete="off" required minLength={4} />
        </label>
        <button type="submit" disabled={busy}>
          Look up
        </button>
      </form>
      {error && <ErrorState error={error} />}
      {found === null && (
        <Empty title="No screen is waiting with this code">
          <p>Check the code on the screen (it changes after a few minutes) and try again.</p>
        </Empty>
      )}
      {found && (
        <form className="stack card" onSubmit={claim} aria-labelledby="found-h">
          <h2 id="found-h">Screen {found.code}</h2>
          <p className="muted">
            {found.screenWidth && found.screenHeight ? `${found.screenWidth}×${found.screenHeight}, ` : ''}
            {found.userAgent ?? 'unknown browser'}; the code expires {new Date(found.expiresAt).toLocaleTimeString()}.
          </p>
          <label>
            Name
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Lobby screen" />
          </label>
          <button type="submit" className="primary" disabled={busy}>
            Claim this screen
          </button>
        </form>
      )}
      <p>
        <Link to="/screens">Back to the screens</Link>
      </p>
    </section>
  );
}
