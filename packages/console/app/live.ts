// Live updates: one server-sent event stream, re-dispatched to the open page.

/** `approvals` when the inbox changed, `calls` when a call started or ended. */
export const live = new EventTarget();

/** Whether the stream is connected (shown in the header). */
let connected = false;

/** Opens the stream (the browser reconnects by itself after a drop). */
export function startLive(onState: (connected: boolean) => void): void {
  const source = new EventSource('api/events', { withCredentials: true });
  const state = (next: boolean) => {
    if (next !== connected) {
      connected = next;
      onState(next);
    }
  };
  source.addEventListener('ready', () => state(true));
  source.addEventListener('error', () => state(false));
  for (const name of ['approvals', 'calls']) {
    source.addEventListener(name, () => live.dispatchEvent(new Event(name)));
  }
}
