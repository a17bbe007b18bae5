import { KsadkError, type KsadkErrorCode } from '../errors/ksadk-error.js';
import type { GatewayErrorType } from '../gateway/tool-error-types.js';
import type { SkillsErrorType } from './error-types.js';

/** What each model-facing type is for the programmer (anything else: `service_unavailable`). */
const CODES: Readonly<Partial<Record<SkillsErrorType | GatewayErrorType, KsadkErrorCode>>> = {
  invalid_config: 'invalid_config',
  unsafe_archive: 'invalid_package',
  hash_mismatch: 'invalid_package',
  invalid_skill_package: 'invalid_package',
  too_large: 'invalid_package',
  space_not_configured: 'invalid_config',
};

/**
 * A Skill Service or skill package failure. A {@link KsadkError}: `code` for the programmer
 * (`invalid_package` for a refused archive, `service_unavailable` for a service that failed or
 * cannot be reached, `invalid_config`), and `errorType` for the model — the `error_type` the skill
 * tools answer (`unsafe_archive`, `hash_mismatch`, `skill_service_timeout`…).
 */
export class SkillServiceError extends KsadkError {
  readonly errorType: SkillsErrorType | GatewayErrorType;
  constructor(
    errorType: SkillsErrorType | GatewayErrorType,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(CODES[errorType] ?? 'service_unavailable', message, {
      ...(options.cause === undefined ? {} : { cause: options.cause }),
      details: { error_type: errorType },
    });
    this.name = 'SkillServiceError';
    this.errorType = errorType;
  }
}
