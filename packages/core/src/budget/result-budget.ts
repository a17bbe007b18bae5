import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { InvocationContext } from '../context/invocation-context.js';
import { checkOptions } from '../errors/check-options.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { wholeNumberFromEnv } from '../util/env.js';
import { defaultResultDir } from '../util/private-dirs.js';
import { redactSecrets } from '../util/redact.js';
import { reserveDirectory } from '../util/reserved-dirs.js';
import {
  DEFAULT_RESULT_RETENTION,
  persistToStore,
  type ResultRetention,
  resultStem,
} from './result-store.js';

/** Budget limits. Characters are UTF-16 code units (JavaScript string length). */
export interface ResultBudgetOptions {
  /** Maximum inline characters. @default 50000 */
  maxChars?: number;
  /** Inline preview length when the full value is persisted. @default 8000 */
  previewChars?: number;
  /** Above this length the full value is written to a file. @default maxChars */
  persistThresholdChars?: number;
  /**
   * Root directory for persisted outputs; files go to `<root>/<account>/<user>/<session>/` (folders
   * `0700`, files `0600`). Keep it outside every workspace: the model reads its outputs back
   * only through `tool-results://` handles, checked against its own account, user and session.
   * @default `KSADK_TOOL_RESULT_DIR`, else `<session dir>/tool-results`
   */
  persistDir?: string;
  /** Largest file written, in bytes; longer values are cut and marked. @default 10 MiB */
  maxPersistBytes?: number;
  /** How many persisted files each session keeps, and for how long. */
  retention?: Partial<ResultRetention>;
}

/** A fully resolved budget. */
export interface ResultBudget {
  readonly maxChars: number;
  readonly previewChars: number;
  readonly persistThresholdChars: number;
  readonly persistDir: string;
  /**
   * False for the default location: a symlink there (or at its two parents) is refused rather
   * than followed, so a cloned project cannot redirect saved outputs.
   */
  readonly persistDirConfigured: boolean;
  readonly maxPersistBytes: number;
  readonly retention: ResultRetention;
}

/** The budget environment variables; each is a cap over code and per-tool limits. */
export const RESULT_BUDGET_ENV = {
  maxChars: 'KSADK_TOOL_RESULT_MAX_CHARS',
  previewChars: 'KSADK_TOOL_RESULT_PREVIEW_CHARS',
  persistThresholdChars: 'KSADK_TOOL_RESULT_PERSIST_THRESHOLD_CHARS',
  persistDir: 'KSADK_TOOL_RESULT_DIR',
} as const;

const DEFAULT_MAX = 50_000;
const DEFAULT_PREVIEW = 8_000;

function positive(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value < 0) {
    throw new KsadkError(
      'invalid_config',
      `Result budget ${name} must be a non-negative number (got ${value}).`,
    );
  }
  return Math.floor(value);
}

function minDefined(...values: (number | undefined)[]): number | undefined {
  const defined = values.filter((value): value is number => value !== undefined);
  return defined.length === 0 ? undefined : Math.min(...defined);
}

/**
 * Resolves a budget. Environment variables are caps: the effective limit is
 * `min(code value or default, env value)`, so a global setting can tighten but never loosen
 * a tool's own limit.
 */
export function resolveResultBudget(
  options: ResultBudgetOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): ResultBudget {
  checkOptions(
    options,
    {
      maxChars: true,
      previewChars: true,
      persistThresholdChars: true,
      persistDir: true,
      maxPersistBytes: true,
      retention: true,
    },
    'result budget',
  );
  checkOptions(
    options.retention,
    { maxFilesPerSession: true, maxBytesPerSession: true, maxAgeMs: true },
    'result budget retention',
  );
  const maxChars = minDefined(
    positive(options.maxChars, 'maxChars') ?? DEFAULT_MAX,
    wholeNumberFromEnv(env, RESULT_BUDGET_ENV.maxChars, undefined),
  )!;
  const previewChars = Math.min(
    maxChars,
    minDefined(
      positive(options.previewChars, 'previewChars') ?? DEFAULT_PREVIEW,
      wholeNumberFromEnv(env, RESULT_BUDGET_ENV.previewChars, undefined),
    )!,
  );
  const persistThresholdChars = minDefined(
    positive(options.persistThresholdChars, 'persistThresholdChars') ?? maxChars,
    wholeNumberFromEnv(env, RESULT_BUDGET_ENV.persistThresholdChars, undefined),
  )!;
  const fromEnv = defaultResultDir(env);
  const configured = options.persistDir !== undefined || fromEnv.configured;
  const persistDir = path.resolve(options.persistDir ?? fromEnv.dir);
  // Reserved now, not on the first save: a fresh process must not show other accounts' results.
  reserveDirectory(persistDir);
  const retention: ResultRetention = Object.freeze({
    maxFilesPerSession:
      positive(options.retention?.maxFilesPerSession, 'retention.maxFilesPerSession') ??
      DEFAULT_RESULT_RETENTION.maxFilesPerSession,
    maxBytesPerSession:
      positive(options.retention?.maxBytesPerSession, 'retention.maxBytesPerSession') ??
      DEFAULT_RESULT_RETENTION.maxBytesPerSession,
    maxAgeMs:
      positive(options.retention?.maxAgeMs, 'retention.maxAgeMs') ??
      DEFAULT_RESULT_RETENTION.maxAgeMs,
  });
  return Object.freeze({
    maxChars,
    previewChars,
    persistThresholdChars,
    persistDir,
    persistDirConfigured: configured,
    maxPersistBytes: positive(options.maxPersistBytes, 'maxPersistBytes') ?? 10 * 1024 * 1024,
    retention,
  });
}

/** Narrows a budget for one tool: each limit becomes `min(tool limit, budget limit)`. */
export function narrowBudget(
  budget: ResultBudget,
  limits: { maxChars?: number; previewChars?: number } = {},
): ResultBudget {
  if (limits.maxChars === undefined && limits.previewChars === undefined) return budget;
  const maxChars = Math.min(budget.maxChars, limits.maxChars ?? Number.POSITIVE_INFINITY);
  return {
    ...budget,
    maxChars,
    previewChars: Math.min(
      maxChars,
      budget.previewChars,
      limits.previewChars ?? Number.POSITIVE_INFINITY,
    ),
    persistThresholdChars: Math.min(budget.persistThresholdChars, maxChars),
  };
}

/** Where a persisted value went. */
export interface PersistedOutput {
  /**
   * A `tool-results://<name>` handle, never a host path. `read_workspace_file` reads it back for
   * the same account, user and session (and only for them).
   */
  readonly path: string;
  readonly mime_type: 'text/plain' | 'application/json';
  /** Present when the file itself was cut at `maxPersistBytes`. */
  readonly file_truncated?: true;
}

/** The result of {@link budgetToolOutput}. */
export interface BudgetedOutput {
  /** The inline value (a prefix of the full text). */
  readonly value: string;
  readonly truncated: boolean;
  readonly original_chars: number;
  readonly preview_chars: number;
  readonly persisted?: PersistedOutput;
  /**
   * Why the full text could not be saved (a full disk, a refused store), when it could not: the
   * inline value is then all that is kept. The tool has run either way, so this is no failure.
   */
  readonly persist_error?: string;
}

/** Options for {@link budgetToolOutput} and {@link budgetTextFields}. */
export interface BudgetCallOptions {
  /** The budget; resolved from the environment when absent. */
  budget?: ResultBudget;
  /** Used to name the persisted file (`toolCallId`, `callId` or `id`). */
  metadata?: { toolCallId?: string; callId?: string; id?: string };
  /** Whose directory to persist into. */
  context?: InvocationContext;
  /** `false`: cut to the preview and never write a file (for values the model can already page through). @default true */
  persist?: boolean;
}

/** Cuts `text` to at most `limit` code units without splitting a surrogate pair. */
function prefix(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit;
  const code = text.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

function stringify(value: unknown): {
  text: string;
  mime: PersistedOutput['mime_type'];
  ext: string;
} {
  if (typeof value === 'string') return { text: value, mime: 'text/plain', ext: 'txt' };
  return { text: JSON.stringify(value, null, 2) ?? 'null', mime: 'application/json', ext: 'json' };
}

async function persist(
  text: string,
  ext: string,
  toolName: string,
  fieldName: string,
  budget: ResultBudget,
  options: BudgetCallOptions,
): Promise<{ relative: string; fileTruncated: boolean }> {
  const id =
    options.metadata?.toolCallId ??
    options.metadata?.callId ??
    options.metadata?.id ??
    `${toolName}.${randomBytes(6).toString('hex')}`;
  let bytes = Buffer.from(text, 'utf8');
  const fileTruncated = bytes.length > budget.maxPersistBytes;
  if (fileTruncated) bytes = bytes.subarray(0, budget.maxPersistBytes);
  const relative = await persistToStore(
    bytes,
    resultStem(id, fieldName),
    ext,
    budget,
    options.context ?? {},
  );
  return { relative, fileTruncated };
}

/** Why a save failed, for the model: no path, no detail beyond what it can act on. */
function persistErrorMessage(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const why =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'no space is left where results are saved'
      : 'the result store could not save it';
  return `the full output was not saved (${why}); only this preview is kept`;
}

/**
 * Budgets one value: strings stay text, anything else becomes pretty JSON. Short values come
 * back whole; long ones come back as a preview, with the full text written to a file in the
 * caller's own account, user and session folder and a `tool-results://` handle to it.
 *
 * @example
 * ```ts
 * const out = await budgetToolOutput('run_command', 'stdout', hugeText, { metadata: { toolCallId: 'call_1' } });
 * if (out.truncated) console.log(out.persisted?.path); // "tool-results://call_1.stdout.txt"
 * ```
 */
export async function budgetToolOutput(
  toolName: string,
  fieldName: string,
  value: unknown,
  options: BudgetCallOptions = {},
): Promise<BudgetedOutput> {
  const budget = options.budget ?? resolveResultBudget();
  const stringified = stringify(value);
  const { mime, ext } = stringified;
  // Redacted before anything is cut or saved: a preview can never end inside a credential, and
  // no saved file holds one.
  const text = redactSecrets(stringified.text);
  const shouldPersist =
    options.persist !== false &&
    (text.length > budget.persistThresholdChars || text.length > budget.maxChars);
  const inline = prefix(
    text,
    shouldPersist ? Math.min(budget.previewChars, budget.maxChars) : budget.maxChars,
  );
  const base = {
    value: inline,
    truncated: text.length > inline.length,
    original_chars: text.length,
    preview_chars: inline.length,
  };
  if (!shouldPersist) return base;
  let saved: Awaited<ReturnType<typeof persist>>;
  try {
    saved = await persist(text, ext, toolName, fieldName, budget, options);
  } catch (error) {
    return { ...base, persist_error: persistErrorMessage(error) };
  }
  const { relative, fileTruncated } = saved;
  return {
    ...base,
    persisted: fileTruncated
      ? { path: relative, mime_type: mime, file_truncated: true }
      : { path: relative, mime_type: mime },
  };
}

/**
 * Budgets the listed top-level fields of a result: each is replaced by its inline value and
 * gains `<field>_truncated`, `<field>_original_chars` and `<field>_preview_chars`; persisted
 * ones are listed under `persisted_outputs[<field>]`, and ones that could not be saved under
 * `persist_errors[<field>]` (their preview is then all that is kept). Fields that are absent are
 * left alone.
 */
export async function budgetTextFields<T extends Record<string, unknown>>(
  payload: T,
  toolName: string,
  fields: readonly string[],
  options: BudgetCallOptions = {},
): Promise<T & Record<string, unknown>> {
  const out: Record<string, unknown> = { ...payload };
  const persisted: Record<string, PersistedOutput> = {
    ...((payload['persisted_outputs'] as Record<string, PersistedOutput> | undefined) ?? {}),
  };
  const notSaved: Record<string, string> = {};
  for (const field of fields) {
    if (!(field in payload) || payload[field] === undefined || payload[field] === null) continue;
    const result = await budgetToolOutput(toolName, field, payload[field], options);
    out[field] = result.value;
    out[`${field}_truncated`] = result.truncated;
    out[`${field}_original_chars`] = result.original_chars;
    out[`${field}_preview_chars`] = result.preview_chars;
    if (result.persisted) persisted[field] = result.persisted;
    if (result.persist_error) notSaved[field] = result.persist_error;
  }
  if (Object.keys(persisted).length > 0) out['persisted_outputs'] = persisted;
  if (Object.keys(notSaved).length > 0) out['persist_errors'] = notSaved;
  return out as T & Record<string, unknown>;
}
