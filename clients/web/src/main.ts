// The reference web table: a lobby at #/ and a game at #/game/<id>. Plain TypeScript on the
// @tricktable/client package (clients/typescript), which carries the protocol generated from
// proto/ by buf and protoc-gen-es.

import { connect, playerToken, routeFromAddress, setPlayerToken, transport } from "./connection";
import { Lobby } from "./lobby";
import { Table } from "./table";
import { LadderView, TournamentList, TournamentView, tournamentClient } from "./tournaments";

const client = connect();
const tournaments = tournamentClient(transport());
const root = document.getElementById("app")!;
let current: { stop(): void; identityChanged?(): void } | undefined;

function route(): void {
  current?.stop();
  const hash = routeFromAddress(); // a ?player_token= in the fragment is taken out here
  const match = /^#\/game\/([^/]+)$/.exec(hash);
  const newGame = /^#\/new\/([^/]+)$/.exec(hash);
  // An unlisted table's link: the invite code rides in the fragment, which no server sees.
  const join = /^#\/join\/([^/]+)\/([^/]+)$/.exec(hash);
  const tournament = /^#\/tournament\/([^/]+)$/.exec(hash);
  const ladder = /^#\/ladder\/([^/]+)$/.exec(hash);
  document.getElementById("where")!.textContent = "";
  if (join) {
    const table = new Table(root, client, decodeURIComponent(join[1]), decodeURIComponent(join[2]));
    current = table;
    void table.start();
  } else if (tournament) {
    const view = new TournamentView(root, tournaments, decodeURIComponent(tournament[1]));
    current = view;
    void view.start();
  } else if (ladder) {
    const view = new LadderView(root, tournaments, decodeURIComponent(ladder[1]));
    current = view;
    void view.start();
  } else if (hash === "#/tournaments") {
    const view = new TournamentList(root, tournaments);
    current = view;
    void view.start();
  } else if (match) {
    const table = new Table(root, client, decodeURIComponent(match[1]));
    current = table;
    void table.start();
  } else {
    const lobby = new Lobby(root, client, newGame ? decodeURIComponent(newGame[1]) : "");
    current = lobby;
    void lobby.start();
  }
}

/** For the site that embeds the table: give it the player's token (the operator's JWT) once
 * the player is signed in, or null when they sign out; see clients/web/README.md. */
declare global {
  interface Window {
    tricktable: { setPlayerToken(token: string | null): void; playerToken(): string | null };
  }
}
window.tricktable = {
  setPlayerToken(token) {
    setPlayerToken(token);
    current?.identityChanged?.();
  },
  playerToken,
};

window.addEventListener("hashchange", route);
route();
