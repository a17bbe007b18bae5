import { createHash } from 'node:crypto';
import { isPlainObject } from '../util/plain-object.js';

/** A content hash such as `sha256:<hex>`. */
export interface ContentHash {
  algorithm: string;
  value: string;
}

/**
 * Parses a content hash: empty → `undefined`; no colon → `sha256:<lower-cased value>`;
 * `algo:value` → both trimmed and lower-cased.
 */
export function parseContentHash(raw: unknown): ContentHash | undefined {
  if (typeof raw !== 'string' || !raw.trim()) return undefined;
  const text = raw.trim();
  const colon = text.indexOf(':');
  if (colon < 0) return { algorithm: 'sha256', value: text.toLowerCase() };
  return {
    algorithm: text.slice(0, colon).trim().toLowerCase(),
    value: text
      .slice(colon + 1)
      .trim()
      .toLowerCase(),
  };
}

/** A remote skill as the Skill Service lists it. */
export interface SkillRef {
  skillId: string;
  versionId: string;
  version: string;
  name: string;
  description: string;
  status: string;
  contentHash: ContentHash | undefined;
  aliases: string[];
  tags: string[];
  examples: string[];
  /** The space it was listed in (`public` for premade skills). */
  spaceId: string;
}

type Payload = Record<string, unknown>;

/** The first of `keys` present in `payload` (PascalCase or snake_case spellings). */
export function pick(payload: Payload, ...keys: string[]): unknown {
  for (const key of keys) if (Object.hasOwn(payload, key)) return payload[key];
  return undefined;
}

const str = (value: unknown): string =>
  typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';

/** A comma-split string or a list → trimmed non-empty strings (at most 50). */
function stringList(value: unknown): string[] {
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : [];
  return items.map(str).filter(Boolean).slice(0, 50);
}

/** Reads one skill of a listing (PascalCase or snake_case keys). */
export function skillRefFromPayload(payload: Payload, spaceId: string): SkillRef {
  return {
    skillId: str(pick(payload, 'SkillId', 'skill_id', 'Id', 'id')),
    versionId: str(pick(payload, 'VersionId', 'version_id')),
    version: str(pick(payload, 'Version', 'version')),
    name: str(pick(payload, 'Name', 'name')),
    description: str(pick(payload, 'Description', 'description')),
    status: str(pick(payload, 'Status', 'status')),
    contentHash: parseContentHash(pick(payload, 'ContentHash', 'content_hash')),
    aliases: stringList(pick(payload, 'Aliases', 'aliases')),
    tags: stringList(pick(payload, 'Tags', 'tags')),
    examples: stringList(pick(payload, 'Examples', 'examples')),
    spaceId: str(pick(payload, 'SkillSpaceId', 'skill_space_id', 'SpaceId', 'space_id')) || spaceId,
  };
}

/** Whether a listed skill can be used: no status, or active / available / enabled. */
export function isActiveSkill(ref: SkillRef): boolean {
  return !ref.status || ['active', 'available', 'enabled'].includes(ref.status.toLowerCase());
}

/** The `Data` object of a response (`Data` or `data`), or the response itself. */
export function responseData(payload: Payload): Payload {
  const data = pick(payload, 'Data', 'data');
  return isPlainObject(data) ? data : payload;
}

/** The objects of a listing under the first present key. */
export function listItems(data: Payload, ...keys: string[]): Payload[] {
  const list = pick(data, ...keys);
  return Array.isArray(list) ? list.filter(isPlainObject) : [];
}

/** The skills of a `ListSkillsBySpaceId` / `ListAvailablePremadeSkills` page. */
export function skillRefsFromResponse(payload: Payload, spaceId: string): SkillRef[] {
  return listItems(responseData(payload), 'Skills', 'skills', 'Items', 'items').map((item) =>
    skillRefFromPayload(item, spaceId),
  );
}

/** A skill space of a `ListSkillSpaces` page. */
export interface SkillSpace {
  space_id: string;
  space_name: string;
  description: string;
}

/** The spaces of a `ListSkillSpaces` page, accepting `Id`/`Name` as the real contract spells them. */
export function skillSpacesFromResponse(payload: Payload): SkillSpace[] {
  return listItems(
    responseData(payload),
    'SkillSpaces',
    'skill_spaces',
    'Spaces',
    'spaces',
    'Items',
    'items',
  )
    .map((item) => ({
      space_id: str(
        pick(item, 'SkillSpaceId', 'skill_space_id', 'SpaceId', 'space_id', 'Id', 'id'),
      ),
      space_name: str(
        pick(item, 'SkillSpaceName', 'skill_space_name', 'SpaceName', 'space_name', 'Name', 'name'),
      ),
      description: str(pick(item, 'Description', 'description')),
    }))
    .filter((space) => space.space_id);
}

/** The total count a page reports (`TotalCount`, `Total`…), if any. */
export function totalCountOf(payload: Payload): number | undefined {
  const total = pick(responseData(payload), 'TotalCount', 'total_count', 'Total', 'total');
  return typeof total === 'number' && Number.isFinite(total) ? total : undefined;
}

const SAFE = /[^a-z0-9._-]/g;

/**
 * The cache directory name of a remote skill: `<id or name>__<version>` reduced to a safe
 * charset, plus a hash of the unreduced key — so no remote id (`.`, `..`, `a/../b`, a long or
 * non-ASCII one) can name a path outside the cache, and two different keys never share a
 * directory.
 */
export function skillCacheKey(
  ref: Pick<SkillRef, 'skillId' | 'name' | 'versionId' | 'version' | 'contentHash'>,
): string {
  const raw = [
    ref.skillId || ref.name,
    ref.versionId || ref.version || ref.contentHash?.value || '',
  ]
    .filter(Boolean)
    .join('__');
  const readable = raw
    .toLowerCase()
    .replace(SAFE, '_')
    .replace(/^[._-]+/, '')
    .slice(0, 80);
  const hash = createHash('sha256').update(raw).digest('hex').slice(0, 16);
  return `${readable || 'skill'}-${hash}`;
}
