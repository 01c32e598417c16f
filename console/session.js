// The signed-in session, so that no click is lost (docs/console.md, "Sessions"): the access token
// is renewed silently with the refresh token before it expires (oidc-client-ts); a call whose
// token was refused is renewed and sent once more with the same Idempotency-Key; and when the
// session has truly ended (the refresh token refused or expired), the command the user clicked is
// kept in this tab's sessionStorage with its Idempotency-Key, the user is asked to sign in again,
// and the command is sent after the sign-in: answered once by the broker even if it had arrived
// before, or refused with the broker's reason on screen. Never dropped.

import { t } from './format.js';

const PENDING = 'pcx-console-pending-command';
/** A kept command older than this is not sent any more (the user is told, not surprised). */
const PENDING_MAX_MS = 30 * 60_000;

/** The session ended: there is no token to send until the user signs in again. */
export class SessionEnded extends Error {
  constructor() {
    super(t('session.ended'));
    this.sessionEnded = true;
  }
}

export function createSession(manager) {
  const listeners = new Set();
  let ended = false;
  const announce = () => listeners.forEach((fn) => fn({ ended }));

  /** A token that the broker should take: the current one, or a renewed one; throws SessionEnded. */
  async function token({ renew = false } = {}) {
    let user = await manager.getUser();
    if (user && !user.expired && !renew) return user.access_token;
    if (user?.refresh_token) {
      try {
        user = await manager.signinSilent();
        if (user && !user.expired) {
          if (ended) (ended = false), announce();
          return user.access_token;
        }
      } catch {
        // Refused (the sign-in is over, the user disabled): the session has ended.
      }
    }
    if (!ended) (ended = true), announce();
    throw new SessionEnded();
  }

  return {
    token,
    /** Called with { ended } when the session ends or comes back. */
    onChange(fn) {
      listeners.add(fn);
    },
    get ended() {
      return ended;
    },
    /** Keeps a command to send after signing in again (one at a time: the last click counts). */
    keep(command) {
      sessionStorage.setItem(PENDING, JSON.stringify({ ...command, keptAt: Date.now() }));
    },
    /** The kept command, taken out of storage, if it is this user's and fresh enough; else why not. */
    takeKept(userId) {
      const text = sessionStorage.getItem(PENDING);
      if (!text) return undefined;
      sessionStorage.removeItem(PENDING);
      const command = JSON.parse(text);
      if (command.userId !== userId) return { command, refused: t('session.kept.otherUser', { userId: command.userId }) };
      if (Date.now() - command.keptAt > PENDING_MAX_MS) return { command, refused: t('session.kept.tooOld') };
      return { command };
    },
    signIn() {
      return manager.signinRedirect();
    },
  };
}
