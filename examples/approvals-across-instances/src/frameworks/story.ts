import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Tool, ToolGateway } from '@ksadk/core';
import type { ServiceUrls } from '../stores.js';

/** What one process of a story has: its own gateway (on the shared store) and the guarded tool. */
export interface InstanceContext {
  /** Where the pause is saved and the sent log is kept (shared by every process of the story). */
  readonly runDir: string;
  /** The run's id: the conversation, thread or session every process works on. */
  readonly runId: string;
  readonly gateway: ToolGateway;
  readonly tool: Tool;
  readonly urls: ServiceUrls;
  /** Per-run namespace for tables and keys. */
  readonly namespace: string;
}

/** How a resume ended, as the process reports it. */
export interface ResumeReport {
  /** The model's final answer. */
  readonly output: string;
  /**
   * The `error_type` the tool's result carried, if it failed (`approval_already_used` for a
   * replay), or `not_called` when the framework did not call the tool at all.
   */
  readonly toolErrorType: string | undefined;
}

/** One framework's half of the story: run until the pause, and resume with the human's approval. */
export interface FrameworkStory {
  /** Runs the agent until the approval pause, saves what resuming needs, returns the approval id. */
  pause(context: InstanceContext): Promise<string>;
  /** Resumes the saved pause with an approval. */
  resume(context: InstanceContext): Promise<ResumeReport>;
}

/** Saves what a later process needs to resume (in a real app: a database row keyed by the run). */
export function savePause(context: InstanceContext, value: unknown): void {
  writeFileSync(path.join(context.runDir, 'pause.json'), JSON.stringify(value));
}

/** Loads what {@link savePause} saved. */
export function loadPause<T>(context: InstanceContext): T {
  return JSON.parse(readFileSync(path.join(context.runDir, 'pause.json'), 'utf8')) as T;
}

/** The `error_type` of a tool result given as an object or its JSON text. */
export function errorTypeOf(result: unknown): string | undefined {
  const value = typeof result === 'string' ? safeParse(result) : result;
  const type = (value as { error_type?: unknown } | undefined)?.error_type;
  return typeof type === 'string' ? type : undefined;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
