// The reference web table: a lobby at #/ and a game at #/game/<id>. Plain TypeScript over
// Connect-Web, with the client generated from proto/ by buf and protoc-gen-es.

import { connect, protocolFromAddress, serverFromAddress, transportFor } from "./api";
import { Lobby } from "./lobby";
import { Table } from "./table";
import { LadderView, TournamentList, TournamentView, tournamentClient } from "./tournaments";

const api = connect(protocolFromAddress(), serverFromAddress());
const tournaments = tournamentClient(transportFor(protocolFromAddress(), serverFromAddress()));
const root = document.getElementById("app")!;
let current: { stop(): void } | undefined;

function route(): void {
  current?.stop();
  const match = /^#\/game\/([^/]+)$/.exec(location.hash);
  const newGame = /^#\/new\/([^/]+)$/.exec(location.hash);
  // An unlisted table's link: the invite code rides in the fragment, which no server sees.
  const join = /^#\/join\/([^/]+)\/([^/]+)$/.exec(location.hash);
  const tournament = /^#\/tournament\/([^/]+)$/.exec(location.hash);
  const ladder = /^#\/ladder\/([^/]+)$/.exec(location.hash);
  document.getElementById("where")!.textContent = "";
  if (join) {
    const table = new Table(root, api, decodeURIComponent(join[1]), decodeURIComponent(join[2]));
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
  } else if (location.hash === "#/tournaments") {
    const view = new TournamentList(root, tournaments);
    current = view;
    void view.start();
  } else if (match) {
    const table = new Table(root, api, decodeURIComponent(match[1]));
    current = table;
    void table.start();
  } else {
    const lobby = new Lobby(root, api, newGame ? decodeURIComponent(newGame[1]) : "");
    current = lobby;
    void lobby.start();
  }
}

window.addEventListener("hashchange", route);
route();
