/** A Skill Service or skill package failure; `errorType` is what the model sees. */
export class SkillServiceError extends Error {
  readonly errorType: string;
  constructor(errorType: string, message: string) {
    super(message);
    this.name = 'SkillServiceError';
    this.errorType = errorType;
  }
}
