// The console's API, as the page calls it: same origin, the page token on every change.

const csrf = document.querySelector<HTMLMetaElement>('meta[name="ksadk-csrf"]')?.content ?? '';

/** What the API answered instead of what was asked. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function answerOf<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({}))) as {
    error?: { code?: string; message?: string };
  };
  if (!response.ok)
    throw new ApiError(
      response.status,
      body.error?.code ?? 'error',
      body.error?.message ?? `The console answered ${response.status}.`,
    );
  return body as T;
}

/** GET `api/<path>` (query values that are empty are left out). */
export async function get<T>(
  path: string,
  query: Record<string, string | undefined> = {},
): Promise<T> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  const search = params.size > 0 ? `?${params}` : '';
  return answerOf<T>(await fetch(`api/${path}${search}`, { credentials: 'same-origin' }));
}

/** POST a JSON body to `api/<path>`, with the page token. */
export async function post<T>(path: string, body: unknown = {}): Promise<T> {
  return answerOf<T>(
    await fetch(`api/${path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-ksadk-csrf': csrf },
      body: JSON.stringify(body),
    }),
  );
}

/** The URL of one saved output of a call. */
export const outputUrl = (callId: string, handle: string): string =>
  `api/calls/${encodeURIComponent(callId)}/output?handle=${encodeURIComponent(handle)}`;
