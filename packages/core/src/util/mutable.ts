/** `T` with its `readonly` modifiers removed: for objects built up field by field before they are handed out. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
