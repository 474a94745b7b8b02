// The reference web table: a lobby at #/ and a game at #/game/<id>. Plain TypeScript over
// Connect-Web, with the client generated from proto/ by buf and protoc-gen-es.

import { connect, protocolFromAddress, serverFromAddress } from "./api";
import { Lobby } from "./lobby";
import { Table } from "./table";

const api = connect(protocolFromAddress(), serverFromAddress());
const root = document.getElementById("app")!;
let current: { stop(): void } | undefined;

function route(): void {
  current?.stop();
  const match = /^#\/game\/([^/]+)$/.exec(location.hash);
  const newGame = /^#\/new\/([^/]+)$/.exec(location.hash);
  // An unlisted table's link: the invite code rides in the fragment, which no server sees.
  const join = /^#\/join\/([^/]+)\/([^/]+)$/.exec(location.hash);
  document.getElementById("where")!.textContent = "";
  if (join) {
    const table = new Table(root, api, decodeURIComponent(join[1]), decodeURIComponent(join[2]));
    current = table;
    void table.start();
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
