import { failure, json } from '../http-kit.js';
import { renderSkillMarkdown } from '../skill-markdown.js';
import { answerError, decodedParam, type Route } from './route-kit.js';

/** What a skill name may look like in a URL (the SKILL.md name rule, with room for remote names). */
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The skills catalogue: local and remote skills with their problems, and one skill's SKILL.md. */
export const skillRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: /^skills$/,
    async handle({ services }) {
      const library = services.skills;
      if (!library) return json({ configured: false, skills: [], warnings: [] });
      try {
        const { entries, warnings } = await library.list();
        return json({
          configured: true,
          skills: entries.map((entry) => ({
            name: entry.name,
            description: entry.description,
            version: entry.version,
            space: entry.space_id,
            source: entry.source,
            tags: entry.tags,
            problems: entry.skill?.warnings ?? [],
          })),
          warnings,
        });
      } catch (error) {
        return answerError(error);
      }
    },
  },
  {
    method: 'GET',
    path: /^skills\/([^/]+)$/,
    async handle(context) {
      const { services } = context;
      const name = decodedParam(context, 0) ?? '';
      if (!services.skills || !SKILL_NAME.test(name))
        return failure(404, 'skill_not_found', 'No such skill.');
      try {
        const loaded = await services.skills.load(name);
        if (!loaded) return failure(404, 'skill_not_found', 'No such skill.');
        const { skill } = loaded;
        return json({
          name: skill.name,
          description: skill.description,
          source: skill.source,
          space: loaded.entry.space_id,
          verified: loaded.verified,
          frontmatter: skill.frontmatter,
          html: renderSkillMarkdown(skill.body),
          resources: skill.resources,
          hasWorkflow: skill.hasWorkflow,
          problems: [...skill.warnings, ...loaded.warnings],
        });
      } catch (error) {
        return answerError(error);
      }
    },
  },
];
