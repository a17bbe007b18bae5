import MarkdownIt from 'markdown-it';

let renderer: MarkdownIt | undefined;

/**
 * A SKILL.md body as HTML for the skills page. Raw HTML in the Markdown is escaped, never passed
 * through (`html: false`); links with `javascript:`, `vbscript:`, `file:` or `data:` targets are
 * left as text (markdown-it's link check); links open in a new tab without an opener or referrer.
 * The page's content security policy blocks scripts and foreign images besides.
 */
export function renderSkillMarkdown(body: string): string {
  if (!renderer) {
    renderer = new MarkdownIt({ html: false, linkify: false, typographer: false });
    const defaultOpen = renderer.renderer.rules.link_open;
    renderer.renderer.rules.link_open = (tokens, index, options, env, self) => {
      const token = tokens[index]!;
      token.attrSet('target', '_blank');
      token.attrSet('rel', 'noopener noreferrer');
      return defaultOpen
        ? defaultOpen(tokens, index, options, env, self)
        : self.renderToken(tokens, index, options);
    };
  }
  return renderer.render(body);
}
