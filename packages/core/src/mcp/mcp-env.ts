/** The environment variables of the MCP runtime. */
export const MCP_ENV = {
  servers: 'KSADK_MCP_SERVERS',
  enabled: 'KSADK_ENABLE_MCP_TOOLS',
} as const;
