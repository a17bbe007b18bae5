import { describe, expect, it } from 'vitest';
import { MAX_SKILL_BODY_CHARS, parseSkillMd, SkillMdError, validateSkillMd } from './skill-md.js';

const doc = (front: string, body = '# Body\n'): string => `---\n${front}\n---\n${body}`;

describe('parseSkillMd', () => {
  it('reads every frontmatter field as YAML', () => {
    const parsed = parseSkillMd(
      doc(
        'name: pdf-tools\ndescription: "Read: and split PDFs."\nlicense: MIT\ncompatibility: needs poppler\nmetadata:\n  author: ksadk\n  version: 2\nallowed-tools: Bash(git:*) Read',
      ),
      { expectedName: 'pdf-tools' },
    );
    expect(parsed.frontmatter).toEqual({
      name: 'pdf-tools',
      description: 'Read: and split PDFs.',
      license: 'MIT',
      compatibility: 'needs poppler',
      metadata: { author: 'ksadk', version: '2' },
      allowedTools: ['Bash(git:*)', 'Read'],
    });
    expect(parsed.body).toBe('# Body\n');
    expect(parsed.warnings).toEqual([]);
  });

  it('tolerates a BOM, CRLF line ends and a closing delimiter at the end of the file', () => {
    const crlf = '\uFEFF---\r\nname: a\r\ndescription: A skill.\r\n---\r\nline one\r\nline two\r\n';
    expect(parseSkillMd(crlf).body).toBe('line one\nline two\n');
    expect(parseSkillMd('---\nname: a\ndescription: A.\n---').body).toBe('');
  });

  it('warns (and still loads) on a bad name, a name that differs from the directory, unknown fields', () => {
    const parsed = parseSkillMd(doc('name: Bad--Name\ndescription: d\nextra: 1'), {
      expectedName: 'good',
    });
    expect(parsed.frontmatter.name).toBe('Bad--Name');
    expect(parsed.warnings.join('\n')).toMatch(/lower case/);
    expect(parsed.warnings.join('\n')).toMatch(/differs from its directory "good"/);
    expect(parsed.warnings.join('\n')).toMatch(/unknown frontmatter field "extra"/);
  });

  it('uses the directory name when the name is missing, with a warning', () => {
    const parsed = parseSkillMd(doc('description: d'), { expectedName: 'dir-name' });
    expect(parsed.frontmatter.name).toBe('dir-name');
    expect(parsed.warnings[0]).toMatch(/no name/);
  });

  it('refuses a SKILL.md without frontmatter, without a description, or with YAML that is not a mapping', () => {
    expect(() => parseSkillMd('# just markdown')).toThrow(SkillMdError);
    expect(() => parseSkillMd(doc('name: a'))).toThrow(/no description/);
    expect(() => parseSkillMd(doc('- a\n- b'))).toThrow(/mapping/);
    expect(() => parseSkillMd(doc('name: [unclosed\ndescription: x'))).toThrow(/not valid YAML/);
  });

  it('reads an unquoted value containing a colon leniently, and says so', () => {
    const parsed = parseSkillMd(doc('name: a\ndescription: Use it: when asked'));
    expect(parsed.frontmatter.description).toBe('Use it: when asked');
    expect(parsed.warnings[0]).toMatch(/must be quoted/);
  });

  it('cuts over-long descriptions and bodies, and refuses duplicate keys and alias bombs', () => {
    const parsed = parseSkillMd(
      doc(`name: a\ndescription: ${'d'.repeat(2000)}`, 'x'.repeat(MAX_SKILL_BODY_CHARS + 10)),
    );
    expect(parsed.frontmatter.description).toHaveLength(1024);
    expect(parsed.body).toHaveLength(MAX_SKILL_BODY_CHARS);
    expect(parsed.warnings).toHaveLength(2);
    expect(() => parseSkillMd(doc('name: a\nname: b\ndescription: d'))).toThrow(SkillMdError);
    const bomb = [
      'a: &a [x,x,x,x,x,x,x,x,x]',
      ...Array.from(
        { length: 12 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      ),
    ].join('\n');
    expect(() => parseSkillMd(doc(`name: a\ndescription: d\n${bomb}`))).toThrow(SkillMdError);
  });

  it('keeps __proto__ in metadata as data, never as a prototype', () => {
    const parsed = parseSkillMd(
      doc('name: a\ndescription: d\nmetadata:\n  __proto__: polluted\n  constructor: x'),
    );
    expect(Object.getPrototypeOf(parsed.frontmatter.metadata)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed.frontmatter.metadata!, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('validateSkillMd (strict, for authors)', () => {
  it('passes a clean skill and turns every lenient warning into a problem', () => {
    expect(
      validateSkillMd(doc('name: good\ndescription: Fine.'), { expectedName: 'good' }),
    ).toEqual({ ok: true, problems: [] });
    const result = validateSkillMd(doc('name: good\ndescription: Fine.\nowner: me'), {
      expectedName: 'other',
    });
    expect(result.ok).toBe(false);
    expect(result.problems).toHaveLength(2);
    expect(validateSkillMd('no frontmatter').ok).toBe(false);
  });
});
