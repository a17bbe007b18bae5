/** Longest query accepted, in characters. */
export const MAX_QUERY_CHARS = 1000;
