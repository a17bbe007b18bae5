import { validateJsonSchemaInput } from '../gateway/validate-input.js';
import type { Tool } from '../tool/tool.js';
import { findRefLoop } from './ref-loop.js';
import { geminiToolSchema, langChainToolSchema, openAIToolSchema } from './tool-schemas.js';

/**
 * Checks, before a tool is offered, that its schema can be used: no `$ref` loop, a validator that
 * compiles and runs, and conversions for OpenAI, Gemini/ADK and LangChain that succeed. Returns
 * the reason it cannot, or `undefined`. MCP and external tools that fail are skipped at load and
 * reported, rather than failing on every call.
 */
export async function probeToolSchema(tool: Tool): Promise<string | undefined> {
  if (tool.kind === 'json-schema') {
    const loop = findRefLoop(tool.inputSchema);
    if (loop) return `its input schema has a $ref loop at ${loop.slice(0, 200)}`;
    try {
      await validateJsonSchemaInput(tool.inputSchema, {});
    } catch {
      return 'its input schema cannot be compiled';
    }
  }
  try {
    openAIToolSchema(tool);
    geminiToolSchema(tool);
    langChainToolSchema(tool);
  } catch (error) {
    const message = error instanceof Error ? error.message : 'unknown error';
    return `its input schema cannot be converted: ${message.slice(0, 200)}`;
  }
  return undefined;
}
