// Live updates: one server-sent event stream, re-dispatched to the open page.

/** `approvals` when the inbox changed, `calls` when a call started or ended. */
export const live = new EventTarget();

/** Whether the stream is connected (shown in the header). */
let connected = false;

/** How long before trying again after the server refused the stream: doubling, at most 30 s. */
const FIRST_RETRY_MS = 2000;
const MAX_RETRY_MS = 30_000;

/**
 * Opens the stream. The browser reconnects by itself after a dropped connection, but gives up on
 * a refused one (503 when every place is taken): then it is opened again after a while.
 */
export function startLive(onState: (connected: boolean) => void): void {
  const state = (next: boolean) => {
    if (next !== connected) {
      connected = next;
      onState(next);
    }
  };
  let retry = FIRST_RETRY_MS;
  const open = (): void => {
    const source = new EventSource('api/events', { withCredentials: true });
    source.addEventListener('ready', () => {
      retry = FIRST_RETRY_MS;
      state(true);
    });
    source.addEventListener('error', () => {
      state(false);
      if (source.readyState === EventSource.CLOSED) {
        setTimeout(open, retry);
        retry = Math.min(retry * 2, MAX_RETRY_MS);
      }
    });
    for (const name of ['approvals', 'calls']) {
      source.addEventListener(name, () => live.dispatchEvent(new Event(name)));
    }
  };
  open();
}
