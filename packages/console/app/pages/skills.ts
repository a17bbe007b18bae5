import { get } from '../api.js';
import { badge, h, replace } from '../dom.js';
import { jsonBlock } from '../json-view.js';

interface SkillRow {
  name: string;
  description: string;
  version: string;
  space: string;
  source: string;
  tags: string[];
  problems: string[];
}

interface SkillPage {
  name: string;
  description: string;
  source: string;
  space: string;
  verified: boolean;
  frontmatter: Record<string, unknown>;
  /** SKILL.md rendered by the server: raw HTML escaped, unsafe links dropped. */
  html: string;
  resources: { scripts: string[]; references: string[]; assets: string[] };
  hasWorkflow: boolean;
  problems: string[];
}

/** The skills catalogue (local and remote, with their problems) and one skill's SKILL.md. */
export function renderSkills(main: HTMLElement, selected: string | undefined): () => void {
  const listPane = h('div', { class: 'list-pane plain' }, h('p', { class: 'muted' }, 'Loading…'));
  const detail = h('section', { class: 'detail', 'data-testid': 'skill-detail' });
  replace(main, h('section', { class: 'split' }, listPane, detail));
  void get<{ configured: boolean; skills: SkillRow[]; warnings: string[] }>('skills').then(
    ({ configured, skills, warnings }) => {
      if (!configured) {
        replace(listPane, h('p', { class: 'empty' }, 'No skills configured for this console.'));
        return;
      }
      replace(
        listPane,
        warnings.length > 0 &&
          h(
            'ul',
            { class: 'problems' },
            warnings.map((line) => h('li', null, line)),
          ),
        h(
          'ul',
          { class: 'cards', 'data-testid': 'skill-list' },
          skills.map((skill) =>
            h(
              'li',
              null,
              h(
                'a',
                {
                  href: `#/skills/${encodeURIComponent(skill.name)}`,
                  class: skill.name === selected ? 'selected' : undefined,
                },
                h('strong', null, skill.name),
                ' ',
                badge(skill.source),
                skill.problems.length > 0
                  ? [' ', badge(`${skill.problems.length} problem(s)`, 'warn')]
                  : false,
              ),
              h('p', null, skill.description),
            ),
          ),
        ),
      );
    },
    (error: unknown) => replace(listPane, h('p', { class: 'empty' }, String(error))),
  );
  if (!selected)
    replace(detail, h('p', { class: 'empty' }, 'Choose a skill to read its SKILL.md.'));
  else
    void get<SkillPage>(`skills/${encodeURIComponent(selected)}`).then(
      (skill) => {
        const body = h('article', { class: 'markdown', 'data-testid': 'skill-markdown' });
        // The one place the app takes HTML: the server's markdown-it rendering with raw HTML escaped.
        body.innerHTML = skill.html;
        replace(
          detail,
          h(
            'h2',
            null,
            skill.name,
            ' ',
            badge(skill.source),
            skill.verified ? [' ', badge('verified', 'ok')] : false,
          ),
          h('p', null, skill.description),
          skill.problems.length > 0 &&
            h(
              'ul',
              { class: 'problems', 'data-testid': 'skill-problems' },
              skill.problems.map((line) => h('li', null, line)),
            ),
          body,
          h('h3', null, 'Resources'),
          h(
            'ul',
            { class: 'resources' },
            [
              ...skill.resources.scripts,
              ...skill.resources.references,
              ...skill.resources.assets,
            ].map((file) => h('li', null, h('code', null, file))),
          ),
          h('details', null, h('summary', null, 'Frontmatter'), jsonBlock(skill.frontmatter)),
        );
      },
      (error: unknown) => replace(detail, h('p', { class: 'empty' }, String(error))),
    );
  return () => undefined;
}
