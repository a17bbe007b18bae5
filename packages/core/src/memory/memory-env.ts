/** The environment variables of the memory tools. */
export const MEMORY_ENV = {
  backend: 'KSADK_LTM_BACKEND',
  dir: 'KSADK_LTM_DIR',
  url: 'KSADK_LTM_URL',
  knowledgeBase: 'KSADK_KB_DATASET_ID',
} as const;
