// The invite codes of unlisted tables this browser made, kept in localStorage by game so the
// creator can share the table's link again (after a reload) and revoke it.
//
// The link carries the code in the address's fragment (#/join/<game>/<code>): a browser never
// sends the fragment to a server, so the code stays out of every access log.

const key = (gameId: string) => `tricktable.invite.${gameId}`;

export function keepInvite(gameId: string, code: string): void {
  localStorage.setItem(key(gameId), code);
}

export function invite(gameId: string): string {
  return localStorage.getItem(key(gameId)) ?? "";
}

export function forgetInvite(gameId: string): void {
  localStorage.removeItem(key(gameId));
}

/** The address that joins the game with the code: this page, with the code in the fragment. */
export function inviteLink(gameId: string, code: string): string {
  return `${location.origin}${location.pathname}${location.search}#/join/${encodeURIComponent(gameId)}/${encodeURIComponent(code)}`;
}
