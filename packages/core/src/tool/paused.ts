/**
 * What an adapter's half of a human round trip returns when the framework pauses now and resumes
 * later (an approval's `decide`, a question's `askHuman`).
 */
export const PAUSED: unique symbol = Symbol.for('ksadk.paused');
